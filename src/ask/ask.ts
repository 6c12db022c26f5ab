import { appendFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { configFromEnv } from '../config/index.ts';
import { loadPolicy, type Policy } from '../config/policy.ts';
import { PausedRuns } from './paused-runs.ts';
import type { Knowledge } from '../retrieve/knowledge.ts';
import type { Scope, ScopeOptions } from '../store/types.ts';
import { DossierError } from '../errors/index.ts';
import { resolveModel, type LanguageModelObject, type ResolvedModel } from '../providers/index.ts';
import type { EventListener, RunWarning } from '../protocol/events.ts';
import type { LedgerOptions } from '../evidence/ledger.ts';
import { runAgent, type AgentResult } from '../agent/run-agent.ts';
import { readTrace, ReplayModel, TraceWriter } from '../agent/trace.ts';
import type { ResearchResult } from '../research/run-research.ts';
import { loadUserTools, ragTools, ToolRegistry } from '../agent/tools/registry.ts';
import type { AgentTool } from '../agent/tools/tool.ts';
import type { AskResult } from '../protocol/json-shapes.ts';
export type { AskResult } from '../protocol/json-shapes.ts';

export type AskMode = 'rag' | 'research';

/** What asking needs of the service around it (a `Dossier` is one): its knowledge, settings and scope resolution. */
export interface AskHost extends Knowledge {
  readonly env: Record<string, string | undefined>;
  /** The index's stemming language (the offline model reads with it). */
  readonly language: string;
  /** The scope a request may read (unknown collection names are an error). */
  scope(options: ScopeOptions): Promise<Scope>;
}

export interface AskOptions extends ScopeOptions {
  question: string;
  /** `rag` (default): one agent loop. `research`: a planner over nested RAG agents (research/). */
  mode?: AskMode;
  /** Research mode: the model of the `reasoning` tool (default the main model). */
  reasoningModel?: string | LanguageModelObject | ResolvedModel;
  /** Research mode: the model that critiques drafts and the final answer claim by claim (default the main model; offline: the word-match critique). */
  critiqueModel?: string | LanguageModelObject | ResolvedModel;
  /** "provider:model" (default: $DOSSIER_MODEL or offline), an AI SDK model object, or a resolved model. */
  model?: string | LanguageModelObject | ResolvedModel;
  maxSteps?: number;
  /** Seconds one model call may take, retries included ($DOSSIER_MODEL_TIMEOUT; default 120). */
  timeoutSeconds?: number;
  /** Extra tools, and a folder of user tool files (each default-exports a tool). */
  tools?: AgentTool[];
  toolsDir?: string;
  /** Write the run as JSON lines here (what `replay` reruns). */
  trace?: string;
  tokenBudget?: number;
  /** Tokens of tool results the transcript may hold before a model turn; past it older results are compacted (AgentOptions.contextTokens; default 8000). */
  contextTokens?: number;
  ledger?: LedgerOptions;
  signal?: AbortSignal;
  onEvent?: EventListener;
  /** Tool permissions and approval rules (default: the policy file from DOSSIER_CONFIG or ./dossier.config.json). */
  policy?: Policy;
  /** The run's id (default a new UUID): the server names runs before they start. */
  runId?: string;
  /** Where a run paused for approval is saved (default DOSSIER_RUNS_DIR); needed when the policy asks for approval. */
  runsDir?: string;
}

export interface ReplayResult extends AskResult {
  /** The replay reproduced the recorded answer exactly. */
  same: boolean;
}

function isResolved(model: AskOptions['model']): model is ResolvedModel {
  return typeof model === 'object' && model !== null && 'model' in model && 'supportsTools' in model;
}

/** Model timeout from the option or DOSSIER_MODEL_TIMEOUT (seconds); a bad value is a config error, not a silent default. */
export function modelTimeoutMs(seconds: number | undefined, env: Record<string, string | undefined>): number | undefined {
  const configured = configFromEnv(env).modelTimeout;
  const raw = seconds ?? (configured ? Number(configured) : undefined);
  if (raw === undefined) return undefined;
  if (!Number.isFinite(raw) || raw <= 0)
    throw new DossierError('config', `model timeout must be a positive number of seconds, got "${seconds ?? configured}"`);
  return Math.round(raw * 1000);
}

/** Shapes a run for callers: the documented keys, and the failure when there was one. */
export function toAskResult(
  result: AgentResult & Partial<Pick<ResearchResult, 'brief' | 'plan' | 'subagents' | 'critique' | 'warnings'>>,
  model: string,
): AskResult {
  // Beside the answer, never in it: open sub-questions (the planner's) and ids that resolve to nothing (the citation check's).
  const warnings: RunWarning[] = [
    ...(result.warnings ?? []),
    ...result.unresolvedCitations.map(
      (id): RunWarning => ({
        by: 'citation-check',
        id,
        message: `${id} is cited but resolves to no evidence read in this run (shown as [unresolved: ${id}])`,
      }),
    ),
  ];
  const critique = result.critique;
  return {
    answer: result.answer,
    citations: result.citations,
    unresolvedCitations: result.unresolvedCitations,
    finishReason: result.finishReason,
    partial: result.partial,
    steps: result.steps,
    toolCalls: result.toolCalls,
    usage: result.usage,
    model,
    ...(result.error ? { error: result.error } : {}),
    runId: result.runId,
    ms: result.ms,
    ...(result.plan ? { brief: result.brief, plan: result.plan, subagents: result.subagents } : {}),
    ...(critique
      ? {
          critique: {
            checks: critique.checks,
            openQuestions: critique.openQuestions,
            rounds: critique.rounds,
            findings: critique.findings,
            model: critique.model,
          },
        }
      : {}),
    ...(warnings.length ? { warnings } : {}),
    ...(result.closestPassages?.length ? { closestPassages: result.closestPassages } : {}),
  };
}

export async function ask(host: AskHost, options: AskOptions): Promise<AskResult> {
  const mode = options.mode ?? 'rag';
  if (mode !== 'rag' && mode !== 'research') throw new DossierError('bad-input', `mode must be rag or research, got "${mode}"`);
  const scope = await host.scope(options);
  const timeoutMs = modelTimeoutMs(options.timeoutSeconds, host.env);
  const spec = options.model ?? configFromEnv(host.env).model;
  const model = isResolved(spec) ? spec : await resolveModel(spec, { env: host.env, language: host.language });
  const policy = options.policy ?? loadPolicy(configFromEnv(host.env).configFile);
  const collections = scope.collections;
  const allowTool = (name: string) => policy.allowTool(name, mode, collections);
  const holdForApproval = policy.approvalReason(options.question, mode);
  const runsDir = options.runsDir ?? configFromEnv(host.env).runsDir;
  if (holdForApproval && !runsDir)
    throw new DossierError(
      'config',
      `this question needs approval (${holdForApproval}), but no runs folder is set to keep it in (runsDir / DOSSIER_RUNS_DIR)`,
    );
  const userTools = [...(options.tools ?? []), ...(options.toolsDir ? await loadUserTools(options.toolsDir) : [])];
  const trace = options.trace ? new TraceWriter(options.trace) : undefined;
  const onEvent = (event: Parameters<EventListener>[0]) => {
    trace?.write(event);
    options.onEvent?.(event);
  };
  // What both modes share; research adds its planner's tools and the reasoning model.
  const run = {
    knowledge: host,
    question: options.question,
    runId: options.runId,
    model,
    scope,
    maxSteps: options.maxSteps,
    tokenBudget: options.tokenBudget,
    contextTokens: options.contextTokens,
    ledger: options.ledger,
    modelTimeoutMs: timeoutMs,
    signal: options.signal,
    onEvent,
    holdForApproval,
  };
  const where = { question: options.question, runsDir, trace: options.trace, mode, index: await host.store.identity() };
  try {
    if (mode === 'research') {
      const reasoning = options.reasoningModel;
      const reasoningModel =
        reasoning === undefined
          ? undefined
          : isResolved(reasoning)
            ? reasoning
            : await resolveModel(reasoning, { env: host.env, language: host.language });
      const critic = options.critiqueModel;
      const critiqueModel =
        critic === undefined
          ? undefined
          : isResolved(critic)
            ? critic
            : await resolveModel(critic, { env: host.env, language: host.language });
      const { runResearch, configuredResearchTools } = await import('../research/index.ts');
      const result = await runResearch({
        ...run,
        reasoningModel,
        critiqueModel,
        tools: [...configuredResearchTools(configFromEnv(host.env).web), ...userTools],
        allowTool,
      });
      return paused(toAskResult(result, model.id), result, where);
    }
    const tools = new ToolRegistry([...ragTools(), ...userTools].filter((tool) => allowTool(tool.name)));
    const result = await runAgent({ ...run, tools });
    return paused(toAskResult(result, model.id), result, where);
  } finally {
    await trace?.close();
  }
}

/** A run that stopped for approval is saved, its answer held, until `approve` decides. */
function paused(
  result: AskResult,
  run: AgentResult,
  where: { question: string; runsDir?: string; trace?: string; mode: string; index: import('../store/types.ts').IndexIdentity },
): AskResult {
  if (result.finishReason !== 'needs-approval' || !run.held || !where.runsDir) return result;
  const { reason, ...held } = run.held;
  new PausedRuns(where.runsDir).save({
    runId: result.runId,
    question: where.question,
    mode: where.mode,
    reason,
    pausedAt: new Date().toISOString(),
    index: where.index,
    result,
    held,
    ...(where.trace ? { trace: resolve(where.trace) } : {}),
  });
  return result;
}

export interface ApproveOptions {
  runsDir: string;
  /** End the run instead of releasing its answer. */
  deny?: boolean;
  /** Who decided (recorded in the run and its trace). */
  by: string;
  note?: string;
}

/** The decision on a paused run: approved releases the held answer; denied ends the run without it. */
export interface ApproveResult extends AskResult {
  decision: 'approved' | 'denied';
  by: string;
}

/**
 * Decides a run paused for approval, once: approving releases its answer (finish reason `stop`),
 * denying ends it (`aborted`, with no answer shown). The decision is saved with the run and
 * appended to its trace, so the trace shows who decided what and when.
 */
export async function approve(host: AskHost, runId: string, options: ApproveOptions): Promise<ApproveResult> {
  const runs = new PausedRuns(options.runsDir);
  const run = runs.load(runId);
  if (run.decision)
    throw new DossierError('bad-input', `run ${runId} was already ${run.decision.decision} by ${run.decision.by} at ${run.decision.time}`);
  const current = await host.store.identity();
  if (run.index.id !== current.id)
    throw new DossierError('bad-input', `run ${runId} was paused on another index (${run.index.id}); use the --db it ran on`);
  const decision = {
    decision: options.deny ? ('denied' as const) : ('approved' as const),
    by: options.by,
    time: new Date().toISOString(),
    ...(options.note ? { note: options.note } : {}),
  };
  runs.save({ ...run, decision });
  const result: ApproveResult = options.deny
    ? {
        ...run.result,
        answer: `The answer was withheld: ${options.by} denied approval (${run.reason}).`,
        citations: [],
        unresolvedCitations: [],
        finishReason: 'aborted',
        partial: true,
        error: { code: 'denied', message: `approval denied by ${options.by}` },
        decision: decision.decision,
        by: options.by,
      }
    : {
        ...run.result,
        answer: run.held.answer,
        citations: run.held.citations,
        unresolvedCitations: run.held.unresolvedCitations,
        finishReason: 'stop',
        decision: decision.decision,
        by: options.by,
      };
  if (run.trace) {
    const events = [
      { type: 'approval', runId, ...decision },
      ...(options.deny
        ? []
        : [
            {
              type: 'final-answer',
              answer: result.answer,
              citations: result.citations,
              unresolvedCitations: result.unresolvedCitations,
              partial: result.partial,
            },
          ]),
      {
        type: 'run-finish',
        finishReason: result.finishReason,
        steps: result.steps,
        toolCalls: result.toolCalls,
        usage: result.usage,
        ms: result.ms,
      },
    ];
    appendFileSync(run.trace, `${events.map((event) => JSON.stringify(event)).join('\n')}\n`);
  }
  return result;
}

/** Reruns a trace from its recorded model outputs against the index it was recorded on. */
export async function replay(host: AskHost, path: string, options: Pick<AskOptions, 'onEvent'> = {}): Promise<ReplayResult> {
  const events = readTrace(path);
  const start = events.find((event) => event.type === 'run-start');
  const recorded = events.find((event) => event.type === 'final-answer');
  if (start?.type !== 'run-start') throw new DossierError('bad-input', `trace ${path} has no run-start event; it is not a Dossier trace`);
  if (recorded?.type !== 'final-answer' || !events.some((event) => event.type === 'run-finish')) {
    throw new DossierError(
      'bad-input',
      `trace ${path} is truncated: it has no final answer and run-finish (the run did not end, or the file was cut)`,
    );
  }
  const current = await host.store.identity();
  if (!start.index)
    throw new DossierError(
      'bad-input',
      `trace ${path} does not record which index it ran on (made by an older Dossier); it cannot be checked`,
    );
  if (start.index.id !== current.id) {
    throw new DossierError(
      'bad-input',
      `trace ${path} was recorded on another index (${start.index.id}, this is ${current.id}); use the --db it ran on`,
    );
  }
  if (start.index.generation !== current.generation) {
    throw new DossierError(
      'bad-input',
      `the index changed since trace ${path} was recorded (then ${start.index.documents} documents at generation ${start.index.generation}, now ${current.documents} at ${current.generation}); a replay would not be the same run`,
    );
  }
  const model = ReplayModel.fromTrace(events);
  const result = await runAgent({
    knowledge: host,
    question: start.question,
    model: { model, id: model.modelId, supportsTools: !start.textTools },
    maxSteps: start.maxSteps ?? (events.filter((event) => event.type === 'step-start').length || 1),
    now: new Date(start.time),
    onEvent: options.onEvent,
  });
  return { ...toAskResult(result, start.model), same: recorded.answer === result.answer };
}
