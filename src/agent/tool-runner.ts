import { oneLine } from '../errors/index.ts';
import type { AgentEvent, ToolCallRecord } from '../protocol/events.ts';
import type { ToolRegistry } from './tools/registry.ts';
import type { AgentTool, ToolContext, ToolResult } from './tools/tool.ts';

/** What one tool call came to, as the model will read it. */
export interface ToolOutcome {
  call: ToolCallRecord;
  ok: boolean;
  /** The tool's `forModel` text, or the error the model reads. */
  text: string;
  /** The tool is a search (counts towards stagnation). */
  searches: boolean;
  newEvidence: number;
}

export interface ToolRunnerOptions {
  tools: ToolRegistry;
  /** Calls of one step running at the same time, at most. */
  concurrency: number;
  /** Per call; on expiry the call's `context.signal` fires and its result is an error. */
  timeoutMs: number;
  /** The run's signal: aborting it fires every running call's `context.signal`. */
  signal?: AbortSignal;
  emit: (event: AgentEvent) => void;
}

/** The run's share of a tool context; the runner adds the per-call signal. */
export type ToolRunContext = Omit<ToolContext, 'signal' | 'generate'> & {
  generate?: (prompt: string, signal: AbortSignal) => Promise<string>;
};

/** Why a call's signal fired when the run itself was not aborted. */
export class ToolTimeoutError extends Error {
  constructor(
    readonly toolName: string,
    readonly ms: number,
  ) {
    super(`${toolName} timed out after ${ms} ms`);
    this.name = 'TimeoutError';
  }
}

/**
 * Runs one step's tool calls, at most `concurrency` at a time, in call order; outcomes come back in
 * call order. Nothing here throws: unknown tools, invalid arguments, failures, timeouts and aborts
 * all become error outcomes the model can act on.
 */
export async function runToolCalls(
  calls: readonly ToolCallRecord[],
  context: ToolRunContext,
  options: ToolRunnerOptions,
): Promise<ToolOutcome[]> {
  const outcomes: ToolOutcome[] = new Array(calls.length);
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      const index = next++;
      outcomes[index] = await runToolCall(calls[index], context, options);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, options.concurrency), calls.length) }, worker));
  return outcomes;
}

export async function runToolCall(call: ToolCallRecord, context: ToolRunContext, options: ToolRunnerOptions): Promise<ToolOutcome> {
  const started = performance.now();
  const tool = options.tools.get(call.toolName);
  const { emit } = options;
  emit({ type: 'tool-call', step: context.step, toolCallId: call.toolCallId, toolName: call.toolName, input: call.input });
  const finish = (ok: boolean, text: string, summary: string, result?: ToolResult): ToolOutcome => {
    emit({
      type: 'tool-result',
      step: context.step,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      ok,
      summary,
      evidenceIds: result?.evidence.map((e) => e.id) ?? [],
      ms: Math.round(performance.now() - started),
    });
    return { call, ok, text, searches: Boolean(tool?.searches), newEvidence: result?.newEvidence.length ?? 0 };
  };
  if (!tool) return finish(false, `unknown tool "${call.toolName}"; available tools: ${options.tools.names().join(', ')}`, 'unknown tool');
  if (call.inputError) return finish(false, `invalid arguments for ${tool.name}: ${call.inputError}`, 'invalid arguments');
  const parsed = tool.inputSchema.safeParse(call.input ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`).join('; ');
    return finish(false, `invalid arguments for ${tool.name}: ${issues}`, 'invalid arguments');
  }
  if (options.signal?.aborted) return finish(false, `${tool.name} was not run: the run was aborted`, 'aborted');

  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new ToolTimeoutError(tool.name, options.timeoutMs)), options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
  try {
    const result = checkResult(await untilAborted(execute(tool, parsed.data, context, signal), signal));
    for (const entry of result.newEvidence) emit({ type: 'evidence-added', step: context.step, evidence: context.ledger.summary(entry) });
    return finish(true, result.forModel, result.summary, result);
  } catch (error) {
    if (timeout.signal.aborted && !options.signal?.aborted)
      return finish(false, `${tool.name} timed out after ${options.timeoutMs} ms; no result. Try a narrower request.`, 'timed out');
    if (options.signal?.aborted) return finish(false, `${tool.name} was stopped: the run was aborted`, 'aborted');
    return finish(false, `${tool.name} failed: ${oneLine(error)}`, `failed: ${oneLine(error)}`);
  } finally {
    clearTimeout(timer);
  }
}

function execute(tool: AgentTool, input: unknown, context: ToolRunContext, signal: AbortSignal): Promise<ToolResult> {
  const { generate, ...rest } = context;
  // Invoked inside a promise so a tool that throws synchronously still becomes an error result.
  return new Promise<ToolResult>((resolve) =>
    resolve(tool.execute(input, { ...rest, signal, ...(generate ? { generate: (prompt: string) => generate(prompt, signal) } : {}) })),
  );
}

/** Settles with the work, or rejects as soon as the signal fires, even when the work ignores it. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** A tool that returns something other than a ToolResult is a failed call, not a crash later on. */
function checkResult(result: ToolResult): ToolResult {
  if (typeof result !== 'object' || result === null || typeof result.forModel !== 'string') throw new Error('returned no forModel text');
  if (!Array.isArray(result.evidence) || !Array.isArray(result.newEvidence)) throw new Error('returned no evidence and newEvidence arrays');
  return { ...result, summary: typeof result.summary === 'string' ? result.summary : '' };
}
