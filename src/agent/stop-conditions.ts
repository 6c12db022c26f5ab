import type { FinishReason, Usage } from '../protocol/events.ts';

/** What one finished step did, as far as stopping is concerned. */
export interface StepRecord {
  step: number;
  toolCalls: number;
  /** Calls to search tools in the step, and how much new evidence they added. */
  searches: { calls: number; newEvidence: number };
}

export interface RunProgress {
  /** Steps finished so far, in order. */
  steps: readonly StepRecord[];
  usage: Usage;
  /** Milliseconds since the run started (0 when not measured). */
  elapsedMs?: number;
}

/**
 * Decides, before a step, whether the run stops there: a finish reason, or undefined to go on.
 * Small and composable, like the AI SDK's `stepCountIs`; `stopReason` evaluates a list of them.
 */
export type StopCondition = (progress: RunProgress) => FinishReason | undefined;

export function stepCountIs(maxSteps: number): StopCondition {
  return ({ steps }) => (steps.length >= maxSteps ? 'max-steps' : undefined);
}

/** Total model tokens (input + output) spent reach the budget. */
export function tokenBudgetIs(budget: number): StopCondition {
  return ({ usage }) => (usage.inputTokens + usage.outputTokens >= budget ? 'budget' : undefined);
}

/** The last `count` steps that searched found nothing new (steps without searches do not count either way). */
export function noNewEvidenceFor(count: number): StopCondition {
  return ({ steps }) => {
    let stagnant = 0;
    for (let i = steps.length - 1; i >= 0 && stagnant < count; i--) {
      const { calls, newEvidence } = steps[i].searches;
      if (calls === 0) continue;
      if (newEvidence > 0) break;
      stagnant++;
    }
    return stagnant >= count ? 'stagnation' : undefined;
  };
}

/** Tool calls made so far reach the budget. */
export function toolCallBudgetIs(budget: number): StopCondition {
  return ({ steps }) => (steps.reduce((sum, step) => sum + step.toolCalls, 0) >= budget ? 'budget' : undefined);
}

/** Wall-clock time since the run started reaches the budget. */
export function timeBudgetIs(ms: number): StopCondition {
  return ({ elapsedMs = 0 }) => (elapsedMs >= ms ? 'budget' : undefined);
}

/** The largest share of any budget spent so far (steps, tokens, tool calls, time), 0–1. */
export function budgetSpent(progress: RunProgress, budget: { steps: number; tokens: number; toolCalls?: number; ms?: number }): number {
  const toolCalls = progress.steps.reduce((sum, step) => sum + step.toolCalls, 0);
  return Math.max(
    progress.steps.length / budget.steps,
    (progress.usage.inputTokens + progress.usage.outputTokens) / budget.tokens,
    budget.toolCalls ? toolCalls / budget.toolCalls : 0,
    budget.ms ? (progress.elapsedMs ?? 0) / budget.ms : 0,
  );
}

export function abortedBy(signal: AbortSignal | undefined): StopCondition {
  return () => (signal?.aborted ? 'aborted' : undefined);
}

/** The first condition that stops the run decides its reason. */
export function stopReason(conditions: readonly StopCondition[], progress: RunProgress): FinishReason | undefined {
  for (const condition of conditions) {
    const reason = condition(progress);
    if (reason !== undefined) return reason;
  }
  return undefined;
}
