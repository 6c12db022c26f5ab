import { z } from 'zod';
import type { AgentTool } from '../../agent/tools/tool.ts';
import { describeFindings, findingsOf, hasFindings } from '../../evidence/claims.ts';
import type { Critic } from '../critique-model.ts';
import type { ResearchState } from '../state.ts';

const input = z.object({
  draft: z.string().min(1).max(50_000).describe('Your draft report, with its [E…] citations'),
});

/**
 * Checks a draft claim by claim against the evidence it cites (the critic: the word-match critique
 * offline, the critique model otherwise); findings must be addressed. A draft is critiqued once.
 */
export function critiqueTool(state: ResearchState, critic: Critic): AgentTool<z.infer<typeof input>> {
  return {
    name: 'critique',
    description:
      'Check a draft against the evidence, claim by claim: uncited claims, citations that do not support their claim, contradicting sources, sub-questions left unanswered. ' +
      'Address every finding (fix it with evidence, remove it, or say in your own words that it is uncertain) before the final answer.',
    inputSchema: input,
    async execute({ draft }, context) {
      context.signal.throwIfAborted();
      const key = state.critiqueKey(draft);
      const known = state.critiqued.get(key);
      const critique =
        known ??
        (await critic.critique({ draft, ledger: context.ledger, plan: state.plan, question: state.question, signal: context.signal }));
      if (!known) {
        state.critiqued.set(key, critique);
        state.critiques.push(critique);
        context.emit?.({
          type: 'critique',
          step: context.step,
          checks: critique.checks,
          openQuestions: critique.openQuestions,
          findings: findingsOf(critique),
          model: critic.model,
        });
      }
      const bad = critique.checks.filter((c) => c.verdict !== 'supported').length;
      return {
        raw: critique,
        forModel: hasFindings(critique)
          ? `CRITIQUE${known ? ' (this draft was checked before)' : ''}: ${critique.checks.length} claims checked, ${bad} with findings, ${critique.openQuestions.length} sub-questions unanswered.\n${describeFindings(critique)}\nAddress each finding, then write the final answer.`
          : `CRITIQUE: ${critique.checks.length} claims checked; every one is supported by the evidence it cites and no sub-question is left unanswered.`,
        evidence: [],
        newEvidence: [],
        summary: `${critique.checks.length} claims, ${bad} findings, ${critique.openQuestions.length} open`,
      };
    },
  };
}
