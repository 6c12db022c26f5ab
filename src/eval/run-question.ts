import { configFromEnv } from '../config/index.ts';
import type { Dossier } from '../dossier.ts';
import type { AgentEvent } from '../protocol/events.ts';
import { runAgent, type AgentModel, type AgentOptions, type AgentResult } from '../agent/run-agent.ts';

/** How an evaluation asks its questions: one RAG agent, or research mode's planner over nested agents. */
export type EvalMode = 'rag' | 'research';
export const EVAL_MODES: readonly EvalMode[] = ['rag', 'research'];

export interface EvalRun extends AgentResult {
  /** Model calls and tool calls of the whole run, nested agents' included. */
  modelCalls: number;
  /** Input tokens of those model calls, as each reported them (the offline model estimates them from the prompt's length). */
  inputTokens: number;
  allToolCalls: number;
  /** The offline model's answerer that gave the final answer (protocol/model-metadata.ts), when the model names one. */
  answeredBy?: string;
  /** The offline model's rule that read the question of the final answer, reported next to `answeredBy`. */
  questionRule?: string;
  /** Research mode's sub-questions and nested agents (absent in RAG mode). */
  research?: Pick<import('../research/run-research.ts').ResearchResult, 'plan' | 'subagents' | 'critique'>;
}

/**
 * Runs one question in the given mode, counting model calls (research mode gets python and the
 * configured web tools, and `critiqueModel` judges its draft; default the run's model).
 */
export async function runQuestion(
  mode: EvalMode,
  { dossier, critiqueModel, ...options }: Omit<AgentOptions, 'knowledge'> & { dossier: Dossier; critiqueModel?: AgentModel },
): Promise<EvalRun> {
  let modelCalls = 0;
  let inputTokens = 0;
  let allToolCalls = 0;
  let answeredBy: string | undefined;
  let questionRule: string | undefined;
  const onEvent = (event: AgentEvent) => {
    if (event.type === 'model-output') {
      modelCalls++;
      inputTokens += event.usage.inputTokens;
    }
    if (event.type === 'model-output' && !event.path) {
      answeredBy = event.answeredBy ?? answeredBy;
      questionRule = event.questionRule ?? questionRule;
    }
    if (event.type === 'tool-call') allToolCalls++;
    options.onEvent?.(event);
  };
  const counted = () => ({
    modelCalls,
    inputTokens,
    allToolCalls,
    ...(answeredBy ? { answeredBy } : {}),
    ...(questionRule ? { questionRule } : {}),
  });
  if (mode === 'rag') return { ...(await runAgent({ ...options, knowledge: dossier, onEvent })), ...counted() };
  const { runResearch, configuredResearchTools } = await import('../research/index.ts');
  const { ledger, tools: _rag, ...rest } = options;
  const result = await runResearch({
    ...rest,
    knowledge: dossier,
    ledger: ledger && !('addHits' in ledger) ? ledger : undefined,
    tools: configuredResearchTools(configFromEnv(dossier.env).web),
    critiqueModel,
    maxSteps: undefined,
    onEvent,
  });
  return {
    ...result,
    ...counted(),
    research: { plan: result.plan, subagents: result.subagents, critique: result.critique },
  };
}
