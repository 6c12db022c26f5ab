import { z } from 'zod';
import type { AgentModel } from '../../agent/run-agent.ts';
import type { AgentTool } from '../../agent/tools/tool.ts';
import { callModel } from '../../providers/call-model.ts';

const input = z.object({
  problem: z.string().min(3).max(20_000).describe('A self-contained problem: the facts (with their evidence ids) and what to work out'),
});

export const OFFLINE_REASONING_LABEL = "Offline reasoning (a structured decomposition of the problem, not a language model's reasoning):";

/**
 * Without a language model, a problem is decomposed rather than solved: what is asked, the facts
 * given (with their evidence ids), the quantities in them, and the steps that would answer it.
 */
export function decomposeProblem(problem: string): string {
  const sentences = problem
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?])\s+(?=[\p{Lu}\d"“(])/u)
    .map((s) => s.trim())
    .filter(Boolean);
  const asked = sentences.filter((s) => s.endsWith('?') || /^(?:find|compute|calculate|determine|decide|which|what|who|how)\b/i.test(s));
  const given = sentences.filter((s) => !asked.includes(s));
  const quantities = [...new Set(problem.match(/(?<![\w.])\d+(?:[.,]\d+)*(?:\s?(?:%|[\p{L}]+))?/gu) ?? [])].slice(0, 12);
  const steps = [
    ...given.map((s, i) => `${i + 1}. Take as given: ${s}`),
    `${given.length + 1}. Relate the givens to what is asked${quantities.length ? ` (quantities: ${quantities.join(', ')})` : ''}; compute with the python tool when it is arithmetic.`,
    `${given.length + 2}. Answer only what the givens support, citing their evidence ids; say what is missing otherwise.`,
  ];
  return [
    OFFLINE_REASONING_LABEL,
    `Asked: ${asked.join(' ') || sentences.at(-1) || problem}`,
    'Given:',
    ...(given.length ? given.map((s) => `- ${s}`) : ['- (nothing stated)']),
    'Steps:',
    ...steps,
  ].join('\n');
}

/** Hands a self-contained problem to the reasoning model (`--reasoning-model`, default the main model). */
export function reasoningTool(model: AgentModel, options: { modelTimeoutMs?: number } = {}): AgentTool<z.infer<typeof input>> {
  return {
    name: 'reasoning',
    description:
      'Think through a self-contained problem (comparison, multi-step inference, a plan for a calculation) with a reasoning model. Give it the facts with their evidence ids; it does not search.',
    inputSchema: input,
    async execute({ problem }, context) {
      context.signal.throwIfAborted();
      if (model.id === 'offline') {
        const text = decomposeProblem(problem);
        return { raw: { model: 'offline', text }, forModel: text, evidence: [], newEvidence: [], summary: 'offline decomposition' };
      }
      const result = await callModel({
        model: model.model,
        system:
          'You reason carefully about one self-contained problem. Work step by step from the facts given, keep their evidence ids next to what they support, and end with a line "Answer: …". Say so when the facts do not settle it.',
        messages: [{ role: 'user', content: problem }],
        abortSignal: context.signal,
        timeoutMs: options.modelTimeoutMs,
      });
      return {
        raw: { model: model.id, text: result.text },
        forModel: result.text,
        evidence: [],
        newEvidence: [],
        summary: `${model.id} reasoning (${result.text.length} chars)`,
      };
    },
  };
}
