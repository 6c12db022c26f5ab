import { configFromEnv } from '../config/index.ts';
import type { Dossier, ScopeOptions } from '../dossier.ts';
import { DossierError } from '../errors/index.ts';
import { resolveModel, type LanguageModelObject, type ResolvedModel } from '../providers/index.ts';
import type { Citation, EventListener, FinishReason, Usage } from './events.ts';
import type { LedgerOptions } from './ledger.ts';
import { runAgent, type AgentResult } from './run-agent.ts';
import { readTrace, ReplayModel, TraceWriter } from './trace.ts';
import { loadUserTools, ragTools, ToolRegistry } from './tools/registry.ts';
import type { AgentTool } from './tools/tool.ts';

export type AskMode = 'rag' | 'research';

export interface AskOptions extends ScopeOptions {
  question: string;
  /** `rag` (default): one agent loop. `research` is not built yet. */
  mode?: AskMode;
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
  ledger?: LedgerOptions;
  signal?: AbortSignal;
  onEvent?: EventListener;
}

/** The `ask --json` object (DESIGN §4). */
export interface AskResult {
  answer: string;
  citations: Citation[];
  unresolvedCitations: string[];
  finishReason: FinishReason;
  partial: boolean;
  steps: number;
  toolCalls: number;
  usage: Usage;
  /** The model that answered, "provider:model" or "offline". */
  model: string;
  /** Set when the run failed (finish reason `error` or `aborted`). */
  error?: { code: string; message: string };
  runId: string;
  ms: number;
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
  if (!Number.isFinite(raw) || raw <= 0) throw new DossierError('config', `model timeout must be a positive number of seconds, got "${seconds ?? configured}"`);
  return Math.round(raw * 1000);
}

/** Shapes a run for callers: the documented keys, and the failure when there was one. */
export function toAskResult(result: AgentResult, model: string): AskResult {
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
  };
}

export async function ask(dossier: Dossier, options: AskOptions): Promise<AskResult> {
  const mode = options.mode ?? 'rag';
  if (mode === 'research') throw new DossierError('bad-input', 'research mode is not available yet; use mode "rag"');
  if (mode !== 'rag') throw new DossierError('bad-input', `mode must be rag or research, got "${mode}"`);
  const scope = await dossier.scope(options);
  const timeoutMs = modelTimeoutMs(options.timeoutSeconds, dossier.env);
  const spec = options.model ?? configFromEnv(dossier.env).model;
  const model = isResolved(spec) ? spec : await resolveModel(spec, { env: dossier.env, language: dossier.language });
  const tools = new ToolRegistry([...ragTools(), ...(options.tools ?? []), ...(options.toolsDir ? await loadUserTools(options.toolsDir) : [])]);
  const trace = options.trace ? new TraceWriter(options.trace) : undefined;
  try {
    const result = await runAgent({
      dossier,
      question: options.question,
      model,
      tools,
      scope,
      maxSteps: options.maxSteps,
      tokenBudget: options.tokenBudget,
      ledger: options.ledger,
      modelTimeoutMs: timeoutMs,
      signal: options.signal,
      onEvent: (event) => {
        trace?.write(event);
        options.onEvent?.(event);
      },
    });
    return toAskResult(result, model.id);
  } finally {
    await trace?.close();
  }
}

/** Reruns a trace from its recorded model outputs against the index it was recorded on. */
export async function replay(dossier: Dossier, path: string, options: Pick<AskOptions, 'onEvent'> = {}): Promise<ReplayResult> {
  const events = readTrace(path);
  const start = events.find((event) => event.type === 'run-start');
  const recorded = events.find((event) => event.type === 'final-answer');
  if (!start || start.type !== 'run-start') throw new DossierError('bad-input', `trace ${path} has no run-start event; it is not a Dossier trace`);
  if (!recorded || recorded.type !== 'final-answer' || !events.some((event) => event.type === 'run-finish')) {
    throw new DossierError('bad-input', `trace ${path} is truncated: it has no final answer and run-finish (the run did not end, or the file was cut)`);
  }
  const current = await dossier.store.identity();
  if (!start.index) throw new DossierError('bad-input', `trace ${path} does not record which index it ran on (made by an older Dossier); it cannot be checked`);
  if (start.index.id !== current.id) {
    throw new DossierError('bad-input', `trace ${path} was recorded on another index (${start.index.id}, this is ${current.id}); use the --db it ran on`);
  }
  if (start.index.generation !== current.generation) {
    throw new DossierError(
      'bad-input',
      `the index changed since trace ${path} was recorded (then ${start.index.documents} documents at generation ${start.index.generation}, now ${current.documents} at ${current.generation}); a replay would not be the same run`,
    );
  }
  const model = ReplayModel.fromTrace(events);
  const result = await runAgent({
    dossier,
    question: start.question,
    model: { model, id: model.modelId, supportsTools: !start.textTools },
    maxSteps: start.maxSteps ?? (events.filter((event) => event.type === 'step-start').length || 1),
    now: new Date(start.time),
    onEvent: options.onEvent,
  });
  return { ...toAskResult(result, start.model), same: recorded.answer === result.answer };
}
