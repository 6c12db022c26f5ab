import type { PlanItem, RunWarning } from '../protocol/events.ts';
import { ReadBudget, type LedgerOptions } from '../evidence/ledger.ts';
import { AGENT_DEFAULTS, runAgent, type AgentModel, type AgentOptions, type AgentResult } from '../agent/run-agent.ts';
import { ragTools, ToolRegistry } from '../agent/tools/registry.ts';
import type { AgentTool } from '../agent/tools/tool.ts';
import { describeFindings, findingsOf, hasFindings, type Critique } from '../evidence/claims.ts';
import type { EvidenceLedger } from '../evidence/ledger.ts';
import { criticFor } from './critique-model.ts';
import type { Finding } from '../protocol/events.ts';
import { critiqueFeedback, researchSystemPrompt } from './prompts.ts';
import { ResearchState, type SubagentRecord } from './state.ts';
import { critiqueTool } from './tools/critique.ts';
import { planTool } from './tools/plan.ts';
import { ragTool } from './tools/rag.ts';
import { reasoningTool } from './tools/reasoning.ts';

/** Research mode's defaults (DESIGN §3, issue 8): 15 planner steps, 10 per nested agent, 4 in parallel. */
export const RESEARCH_DEFAULTS = {
  maxSteps: 15,
  parallel: 4,
  toolCallBudget: 60,
  timeBudgetSeconds: 600,
  tokenBudget: 1_000_000,
  /** At this share of any budget the planner is told to write the final answer now. */
  answerNowAt: 0.85,
  nested: { maxSteps: 10, tokenBudget: AGENT_DEFAULTS.tokenBudget, timeBudgetSeconds: 180 },
};

export interface ResearchOptions
  extends Omit<AgentOptions, 'mode' | 'systemPrompt' | 'tools' | 'reviewAnswer' | 'beforeFinalAnswer' | 'ledger' | 'path'> {
  /** Model for the `reasoning` tool (`--reasoning-model`); default the main model. */
  reasoningModel?: AgentModel;
  /** Model that judges drafts and the final answer claim by claim (`--critique-model`); default the main model. The offline model critiques by word match. */
  critiqueModel?: AgentModel;
  /** More tools for the planner: python, web_search, web_scrape, user tools. */
  tools?: AgentTool[];
  /** Tools the run's permissions allow, by name (default: all). Applies to the planner and every nested agent. */
  allowTool?: (name: string) => boolean;
  /** Nested agents running at the same time, at most. */
  parallel?: number;
  nested?: Partial<typeof RESEARCH_DEFAULTS.nested>;
  ledger?: Pick<LedgerOptions, 'capacity' | 'maxDistinct' | 'similarityFloor'>;
}

export interface ResearchResult extends AgentResult {
  brief: string;
  plan: PlanItem[];
  subagents: SubagentRecord[];
  /**
   * The critique of the answer delivered: every claim checked and how, its findings (each once, with
   * who raised it), sub-questions left open; `rounds`: critiques the gate ran; `model`: who judged;
   * `calls`: model calls the critique made (none offline).
   */
  critique: Critique & { rounds: number; findings: Finding[]; model: string; calls: number };
  /** Open sub-questions of the plan, by the planner. */
  warnings: RunWarning[];
}

/**
 * Research mode: a planning agent over nested RAG agents. Its tools are plan, rag (nested agents,
 * in parallel), reasoning, critique and the RAG tools, plus python and the web tools when allowed.
 * Every answer it gives is critiqued before it is final (the critique gate, with the critique model):
 * the first answer with findings goes back to the planner once; the answer after that is final and
 * delivered word for word, its findings and open sub-questions reported beside it.
 */
export async function runResearch(options: ResearchOptions): Promise<ResearchResult> {
  const state = new ResearchState(options.question.trim());
  const allow = options.allowTool ?? (() => true);
  const reads = new ReadBudget(options.ledger?.maxDistinct);
  const nested = { ...RESEARCH_DEFAULTS.nested, ...options.nested };
  const nestedTools = () => ragTools().filter((tool) => allow(tool.name));
  const critic = criticFor(options.critiqueModel ?? options.model, {
    modelTimeoutMs: options.modelTimeoutMs,
    maxRetries: options.maxRetries,
  });
  const builtIn: AgentTool[] = [
    planTool(state),
    ragTool(state, {
      model: options.model,
      tools: nestedTools,
      maxSteps: nested.maxSteps,
      tokenBudget: nested.tokenBudget,
      timeBudgetSeconds: nested.timeBudgetSeconds,
      reads,
      modelTimeoutMs: options.modelTimeoutMs,
      contextTokens: options.contextTokens,
    }),
    reasoningTool(options.reasoningModel ?? options.model, { modelTimeoutMs: options.modelTimeoutMs }),
    critiqueTool(state, critic),
    ...ragTools(),
  ];
  // Tools passed in add to the planner's own (one of the same name is the built-in one, not a second).
  const planner = [...builtIn, ...(options.tools ?? []).filter((tool) => !builtIn.some((own) => own.name === tool.name))].filter((tool) =>
    allow(tool.name),
  );
  let rounds = 0;
  let last: Critique = { checks: [], openQuestions: [] };
  let sentBack = false;
  let delivered: string | undefined;
  /** Each draft is critiqued once, whether the planner's critique tool or the gate asked first. */
  const critiqueOf = async (answer: string, ledger: EvidenceLedger): Promise<Critique> => {
    const key = state.critiqueKey(answer);
    const known = state.critiqued.get(key);
    if (known) return known;
    const critique = await critic.critique({ draft: answer, ledger, plan: state.plan, question: state.question, signal: options.signal });
    rounds++;
    state.critiqued.set(key, critique);
    state.critiques.push(critique);
    return critique;
  };
  const warnings = (): RunWarning[] =>
    state.plan
      .filter((item) => item.status !== 'answered')
      .map((item) => ({
        by: 'planner',
        subQuestion: item.id,
        message: `${item.id}: ${item.question} (${item.status === 'failed' ? 'its nested agent failed' : 'not answered from the evidence'})`,
      }));
  const report = (step: number, critique: Critique, final: boolean) =>
    options.onEvent?.({
      type: 'critique',
      step,
      checks: critique.checks,
      openQuestions: critique.openQuestions,
      findings: findingsOf(critique),
      model: critic.model,
      ...(final ? { final: true as const, warnings: warnings() } : {}),
    });

  const result = await runAgent({
    ...options,
    runLabel: 'research',
    maxSteps: options.maxSteps ?? RESEARCH_DEFAULTS.maxSteps,
    tokenBudget: options.tokenBudget ?? RESEARCH_DEFAULTS.tokenBudget,
    toolCallBudget: options.toolCallBudget ?? RESEARCH_DEFAULTS.toolCallBudget,
    timeBudgetSeconds: options.timeBudgetSeconds ?? RESEARCH_DEFAULTS.timeBudgetSeconds,
    answerNowAt: options.answerNowAt ?? RESEARCH_DEFAULTS.answerNowAt,
    toolConcurrency: options.parallel ?? RESEARCH_DEFAULTS.parallel,
    // A nested agent is one tool call: it may take its whole time budget.
    toolTimeoutMs: options.toolTimeoutMs ?? Math.max(AGENT_DEFAULTS.toolTimeoutMs, nested.timeBudgetSeconds * 1000 + 10_000),
    systemPrompt: researchSystemPrompt,
    tools: new ToolRegistry(planner),
    ledger: { ...options.ledger, reads },
    // The gate: an answer with findings goes back once; the answer after that is final. It is never rewritten.
    reviewAnswer: async (answer, { ledger, step }) => {
      const critique = await critiqueOf(answer, ledger);
      last = critique;
      if (!sentBack && hasFindings(critique)) {
        sentBack = true;
        report(step, critique, false);
        return critiqueFeedback(describeFindings(critique));
      }
      delivered = answer;
      report(step, critique, true);
      return undefined;
    },
    // An answer the gate did not see (one written at a limit) is critiqued once, for the record.
    beforeFinalAnswer: async (answer, { ledger, step }) => {
      if (delivered === answer) return;
      last = await critiqueOf(answer, ledger);
      report(step, last, true);
    },
  });
  const usage = {
    inputTokens: result.usage.inputTokens + critic.usage.inputTokens,
    outputTokens: result.usage.outputTokens + critic.usage.outputTokens,
  };
  return {
    ...result,
    usage,
    brief: state.brief,
    plan: state.plan.map((item) => ({ ...item })),
    subagents: [...state.subagents],
    critique: { ...last, rounds, findings: findingsOf(last), model: critic.model, calls: critic.calls },
    warnings: warnings(),
  };
}
