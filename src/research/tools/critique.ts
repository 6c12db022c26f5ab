import { z } from 'zod';
import type { AgentTool } from '../../agent/tools/tool.ts';
import { critiqueDraft, describeFindings, hasFindings } from '../../evidence/claims.ts';
import type { ResearchState } from '../state.ts';

const input = z.object({
  draft: z.string().min(1).max(50_000).describe('Your draft report, with its [E…] citations'),
});

/** Checks a draft claim by claim against the evidence it cites (critique.ts); findings must be addressed. */
export function critiqueTool(state: ResearchState): AgentTool<z.infer<typeof input>> {
  return {
    name: 'critique',
    description:
      'Check a draft against the evidence, claim by claim: uncited claims, citations that do not support their claim, contradicting sources, sub-questions left unanswered. ' +
      'Address every finding (fix it with evidence, remove it, or mark it "(uncertain)") before the final answer.',
    inputSchema: input,
    async execute({ draft }, context) {
      context.signal.throwIfAborted();
      const critique = critiqueDraft(draft, (id) => context.ledger.get(id)?.chunk.text, state.plan);
      state.critiques.push(critique);
      context.emit?.({ type: 'critique', step: context.step, checks: critique.checks, openQuestions: critique.openQuestions });
      const bad = critique.checks.filter((c) => c.verdict !== 'supported').length;
      return {
        raw: critique,
        forModel: hasFindings(critique)
          ? `CRITIQUE: ${critique.checks.length} claims checked, ${bad} with findings, ${critique.openQuestions.length} sub-questions unanswered.\n${describeFindings(critique)}\nAddress each finding, then write the final answer.`
          : `CRITIQUE: ${critique.checks.length} claims checked; every one is supported by the evidence it cites and no sub-question is left unanswered.`,
        evidence: [],
        newEvidence: [],
        summary: `${critique.checks.length} claims, ${bad} findings, ${critique.openQuestions.length} open`,
      };
    },
  };
}
