import { z } from 'zod';
import type { AgentTool } from '../../agent/tools/tool.ts';
import type { ResearchState } from '../state.ts';

const input = z.object({
  brief: z.string().min(1).max(2000).describe('The research brief: what the question needs, in two or three sentences'),
  subQuestions: z
    .array(z.string().min(3).max(500))
    .min(1)
    .max(8)
    .describe('Self-contained sub-questions, answerable one by one (2–4 is typical)'),
});

/** Records the brief and the sub-questions; the run's `plan` event comes from here. */
export function planTool(state: ResearchState): AgentTool<z.infer<typeof input>> {
  return {
    name: 'plan',
    description:
      'Write the research brief and the sub-questions you will answer (call it first; call it again to revise the plan). Returns the sub-question ids (S1, S2, …) to pass to rag.',
    inputSchema: input,
    async execute({ brief, subQuestions }, context) {
      context.signal.throwIfAborted();
      const items = state.setPlan(
        brief.trim(),
        subQuestions.map((q) => q.trim()),
      );
      context.emit?.({ type: 'plan', step: context.step, brief: state.brief, items: items.map((item) => ({ ...item })) });
      return {
        raw: { brief: state.brief, items },
        forModel: `Plan recorded.\n${items.map((item) => `${item.id} [${item.status}]: ${item.question}`).join('\n')}\nAnswer each with rag (pass its id as subQuestion); independent ones in the same turn.`,
        evidence: [],
        newEvidence: [],
        summary: `${items.length} sub-questions`,
      };
    },
  };
}
