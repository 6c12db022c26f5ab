import type { PlanItem } from '../protocol/events.ts';
import { ReadBudget, type LedgerOptions } from '../evidence/ledger.ts';
import { AGENT_DEFAULTS, runAgent, type AgentModel, type AgentOptions, type AgentResult } from '../agent/run-agent.ts';
import { ragTools, ToolRegistry } from '../agent/tools/registry.ts';
import type { AgentTool } from '../agent/tools/tool.ts';
import { critiqueDraft, describeFindings, hasFindings, markFindings, type Critique } from '../evidence/claims.ts';
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

export interface ResearchOptions extends Omit<AgentOptions, 'mode' | 'systemPrompt' | 'tools' | 'reviewAnswer' | 'finalizeAnswer' | 'ledger' | 'path'> {
  /** Model for the `reasoning` tool (`--reasoning-model`); default the main model. */
  reasoningModel?: AgentModel;
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
  /** The last critique of the answer: every claim checked and how, and sub-questions left open. */
  critique: Critique & { rounds: number };
}

/**
 * Research mode: a planning agent over nested RAG agents. Its tools are plan, rag (nested agents,
 * in parallel), reasoning, critique and the RAG tools, plus python and the web tools when allowed.
 * Every answer it gives is critiqued before it is final (the critique gate): findings go back to
 * the planner, and whatever is still unsupported after the review rounds is marked uncertain.
 */
export async function runResearch(options: ResearchOptions): Promise<ResearchResult> {
  const state = new ResearchState(options.question.trim());
  const allow = options.allowTool ?? (() => true);
  const reads = new ReadBudget(options.ledger?.maxDistinct);
  const nested = { ...RESEARCH_DEFAULTS.nested, ...options.nested };
  const nestedTools = () => ragTools().filter((tool) => allow(tool.name));
  const builtIn: AgentTool[] = [
    planTool(state),
    ragTool(state, { model: options.model, tools: nestedTools, maxSteps: nested.maxSteps, tokenBudget: nested.tokenBudget, timeBudgetSeconds: nested.timeBudgetSeconds, reads, modelTimeoutMs: options.modelTimeoutMs }),
    reasoningTool(options.reasoningModel ?? options.model, { modelTimeoutMs: options.modelTimeoutMs }),
    critiqueTool(state),
    ...ragTools(),
  ];
  // Tools passed in add to the planner's own (one of the same name is the built-in one, not a second).
  const planner = [...builtIn, ...(options.tools ?? []).filter((tool) => !builtIn.some((own) => own.name === tool.name))].filter((tool) => allow(tool.name));
  let rounds = 0;
  let last: Critique = { checks: [], openQuestions: [] };
  const critiqueOf = (answer: string, ledger: import('../evidence/ledger.ts').EvidenceLedger) => critiqueDraft(answer, (id) => ledger.get(id)?.chunk.text, state.plan);

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
    reviewAnswer: async (answer, { ledger, step }) => {
      const critique = critiqueOf(answer, ledger);
      rounds++;
      last = critique;
      state.critiques.push(critique);
      options.onEvent?.({ type: 'critique', step, checks: critique.checks, openQuestions: critique.openQuestions });
      return hasFindings(critique) ? critiqueFeedback(describeFindings(critique)) : undefined;
    },
    finalizeAnswer: (answer, { ledger }) => {
      const critique = critiqueOf(answer, ledger);
      if (!hasFindings(critique)) {
        last = critique;
        return answer;
      }
      const marked = markFindings(answer, critique);
      last = critiqueOf(marked, ledger);
      return marked;
    },
  });
  return { ...result, brief: state.brief, plan: state.plan.map((item) => ({ ...item })), subagents: [...state.subagents], critique: { ...last, rounds } };
}
