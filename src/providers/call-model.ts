import { APICallError, stepCountIs, streamText, tool, type FinishReason, type FlexibleSchema, type ModelMessage, type ToolSet } from 'ai';
import { DossierError, oneLine } from '../errors/index.ts';
import { modelMetadata, type DossierModelMetadata } from '../protocol/model-metadata.ts';
import type { LanguageModelObject } from './types.ts';

export interface ModelTool {
  description: string;
  /** A zod schema (or `jsonSchema(...)`); the model's arguments are checked against it. */
  inputSchema: FlexibleSchema<any>;
}

export interface CallModelParams {
  model: LanguageModelObject;
  system?: string;
  messages: ModelMessage[];
  /** Offered to the model; never executed here (the agent runs them). */
  tools?: Record<string, ModelTool>;
  /** `none` lets the agent force an answer at a limit without taking the tools away from the history. */
  toolChoice?: 'auto' | 'none' | 'required';
  abortSignal?: AbortSignal;
  /** For the whole call, retries and streaming included (default 120 000). */
  timeoutMs?: number;
  /** Retries on 429, 5xx and network errors, by the AI SDK with exponential backoff honouring Retry-After (default 3). */
  maxRetries?: number;
  temperature?: number;
  maxOutputTokens?: number;
  onTextDelta?: (delta: string) => void;
  onReasoningDelta?: (delta: string) => void;
}

export interface ModelToolCall {
  toolCallId: string;
  toolName: string;
  /** Parsed arguments; when `inputError` is set, whatever could be parsed (or the raw text). */
  input: unknown;
  /** Set when the arguments were not JSON, did not match the schema, or the tool does not exist. */
  inputError?: string;
}

export interface ModelCallResult {
  text: string;
  /** Reasoning text, when the provider streams any. */
  reasoning: string;
  toolCalls: ModelToolCall[];
  finishReason: FinishReason;
  usage: { inputTokens: number; outputTokens: number };
  /** What the model said in structure: not found, which answerer (protocol/model-metadata.ts). */
  metadata: DossierModelMetadata;
  rawOutput: {
    /**
     * The assistant message to append to the history; the agent then adds one tool result per tool
     * call (an error result for calls with `inputError`, whose input here is `{}` when unparsable).
     */
    messages: ModelMessage[];
    /** The provider's own finish reason (e.g. `end_turn`, `tool_calls`). */
    rawFinishReason: string | undefined;
    response: { id: string; modelId: string };
  };
}

export const CALL_DEFAULTS = { timeoutMs: 120_000, maxRetries: 3 };

/** The first retry waits this long unless the server says otherwise (Retry-After); each later one twice as long (the AI SDK's schedule). */
const RETRY_INITIAL_DELAY_MS = 2_000;
const RETRY_BACKOFF = 2;
/** Node's codes for a server that cannot be reached at all: retrying it only delays the failure. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/**
 * One model turn: streams text (and reasoning) to the callbacks and returns the text and tool calls.
 * The SDK runs a single step and executes nothing, so the agent loop stays in charge of tools.
 * Retries are ours (the SDK's retry cannot tell a refused connection from a flaky one): 429, 5xx and
 * network errors are retried with backoff honouring Retry-After, as long as nothing has streamed yet;
 * a refused connection, an unknown host, 401/403 and other 4xx are not.
 * Failures are one-line DossierErrors: `remote-unreachable`, `remote-auth`, `remote-timeout` or
 * `remote-failed`; an abort by the caller throws an AbortError.
 */
export async function callModel(params: CallModelParams): Promise<ModelCallResult> {
  const timeoutMs = params.timeoutMs ?? CALL_DEFAULTS.timeoutMs;
  const maxRetries = params.maxRetries ?? CALL_DEFAULTS.maxRetries;
  const caller = params.abortSignal;
  caller?.throwIfAborted();
  // Our own timer rather than the SDK's `timeout`, so a timeout and a caller abort stay distinguishable.
  const deadline = Date.now() + timeoutMs;
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  const signal = caller ? AbortSignal.any([caller, timeout.signal]) : timeout.signal;
  const label = modelLabel(params.model);
  const failures: unknown[] = [];
  try {
    for (;;) {
      const attempt = await attemptCall(params, signal);
      if (attempt.result) return attempt.result;
      throwIfStopped(caller, timeout.signal, label, timeoutMs);
      failures.push(attempt.failure);
      const wait = retryDelayMs(attempt.failure, failures.length - 1);
      if (attempt.streamed || failures.length > maxRetries || !isRetryable(attempt.failure) || Date.now() + wait >= deadline) break;
      await sleep(wait, signal);
    }
  } catch (error) {
    throwIfStopped(caller, timeout.signal, label, timeoutMs);
    if (DossierError.isInstance(error)) throw error;
    failures.push(error);
  } finally {
    clearTimeout(timer);
  }
  throw failureError(failures, label);
}

/** One request: its result, or its failure and whether any output had already reached the callbacks. */
async function attemptCall(
  params: CallModelParams,
  signal: AbortSignal,
): Promise<
  { result: ModelCallResult; failure?: undefined; streamed?: undefined } | { result?: undefined; failure: unknown; streamed: boolean }
> {
  const text: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: ModelToolCall[] = [];
  let finishReason: FinishReason = 'other';
  let rawFinishReason: string | undefined;
  let usage = { inputTokens: 0, outputTokens: 0 };
  let metadata: DossierModelMetadata = {};
  let failure: unknown;
  let streamed = false;
  try {
    const result = streamText({
      model: params.model,
      system: params.system,
      messages: params.messages,
      tools: params.tools ? toToolSet(params.tools) : undefined,
      toolChoice: params.toolChoice,
      stopWhen: stepCountIs(1),
      maxRetries: 0,
      temperature: params.temperature,
      maxOutputTokens: params.maxOutputTokens,
      abortSignal: signal,
      // Errors arrive as stream parts and are reported below; the SDK would also log them to the console.
      onError: () => {},
    });

    for await (const part of result.fullStream) {
      switch (part.type) {
        case 'text-delta':
          if (part.text === '') break;
          streamed = true;
          text.push(part.text);
          params.onTextDelta?.(part.text);
          break;
        case 'reasoning-delta':
          if (part.text === '') break;
          streamed = true;
          reasoning.push(part.text);
          params.onReasoningDelta?.(part.text);
          break;
        case 'tool-call': {
          // Invalid calls (bad JSON, schema mismatch, unknown tool) come as calls marked `invalid`
          // rather than as errors; the SDK's own `tool-error` part for them is ignored below.
          const call = part as typeof part & { invalid?: boolean; error?: unknown };
          streamed = true;
          toolCalls.push({
            toolCallId: call.toolCallId,
            toolName: call.toolName,
            input: call.input,
            ...(call.invalid ? { inputError: describeInputError(call.error) } : {}),
          });
          break;
        }
        case 'finish-step':
          metadata = { ...metadata, ...modelMetadata(part.providerMetadata) };
          break;
        case 'finish':
          finishReason = part.finishReason;
          rawFinishReason = part.rawFinishReason;
          usage = { inputTokens: part.totalUsage.inputTokens ?? 0, outputTokens: part.totalUsage.outputTokens ?? 0 };
          break;
        case 'error':
          failure ??= part.error;
          break;
        default:
          break;
      }
    }
    if (failure !== undefined) return { failure, streamed };
    const response = await result.response;
    return {
      result: {
        text: text.join(''),
        reasoning: reasoning.join(''),
        toolCalls,
        finishReason,
        usage,
        metadata,
        rawOutput: {
          // The SDK also adds its own error results for invalid calls; the agent sends those itself.
          messages: response.messages.filter((m) => m.role === 'assistant'),
          rawFinishReason,
          response: { id: response.id, modelId: response.modelId },
        },
      },
    };
  } catch (error) {
    return { failure: failure ?? error, streamed };
  }
}

/** 429, 5xx and network errors, but not 401/403 or a server that cannot be reached at all. */
export function isRetryable(error: unknown): boolean {
  if (!APICallError.isInstance(error) || error.isRetryable !== true) return false;
  if (error.statusCode === 401 || error.statusCode === 403) return false;
  return unreachableCode(error) === undefined;
}

/** The SDK's rule: Retry-After-Ms, then Retry-After (seconds or a date), when sane; else exponential backoff. */
export function retryDelayMs(error: unknown, retry: number): number {
  const backoff = RETRY_INITIAL_DELAY_MS * RETRY_BACKOFF ** retry;
  const headers = APICallError.isInstance(error) ? error.responseHeaders : undefined;
  if (!headers) return backoff;
  let ms: number | undefined;
  const retryAfterMs = parseFloat(headers['retry-after-ms'] ?? '');
  if (!Number.isNaN(retryAfterMs)) ms = retryAfterMs;
  const retryAfter = headers['retry-after'];
  if (retryAfter && ms === undefined) {
    const seconds = parseFloat(retryAfter);
    ms = Number.isNaN(seconds) ? Date.parse(retryAfter) - Date.now() : seconds * 1000;
  }
  return ms !== undefined && !Number.isNaN(ms) && ms >= 0 && (ms < 60_000 || ms < backoff) ? ms : backoff;
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The code of a connection that never reached a server (refused, unknown host, no route), if that is what failed. */
function unreachableCode(error: unknown, depth = 0): string | undefined {
  if (typeof error !== 'object' || error === null || depth > 6) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return code;
  // Happy eyeballs: every address refused, one error each.
  if (error instanceof AggregateError)
    for (const inner of error.errors) if (unreachableCode(inner, depth + 1)) return unreachableCode(inner, depth + 1);
  return unreachableCode((error as { cause?: unknown }).cause, depth + 1);
}

/** The one-line error for a remote call that failed: `remote-auth`, `remote-unreachable` or `remote-failed`, naming the HTTP status. */
export function failureError(failures: unknown[], label: string): DossierError {
  const last = failures.at(-1);
  const attempts = failures.length > 1 ? ` (gave up after ${failures.length} attempts)` : '';
  const status = APICallError.isInstance(last) ? last.statusCode : undefined;
  const code = status === 401 || status === 403 ? 'remote-auth' : unreachableCode(last) ? 'remote-unreachable' : 'remote-failed';
  return new DossierError(code, oneLine(`${label} failed: ${describeFailure(last)}${attempts}`), { cause: last });
}

function toToolSet(tools: Record<string, ModelTool>): ToolSet {
  // No `execute`: the SDK returns the calls instead of running them.
  return Object.fromEntries(
    Object.entries(tools).map(([name, t]) => [name, tool({ description: t.description, inputSchema: t.inputSchema })]),
  );
}

/** The caller's abort wins over a timeout, and both over whatever error the abort caused in flight. */
function throwIfStopped(caller: AbortSignal | undefined, timeout: AbortSignal, label: string, timeoutMs: number): void {
  if (caller?.aborted) throw toAbortError(caller.reason);
  if (timeout.aborted) throw new DossierError('remote-timeout', `${label} timed out after ${timeoutMs} ms`);
}

function toAbortError(reason: unknown): Error {
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const detail = reason === undefined ? '' : `: ${reason instanceof Error ? reason.message : String(reason)}`;
  return new DOMException(`model call aborted${detail}`, 'AbortError');
}

function modelLabel(model: LanguageModelObject): string {
  return `${model.provider} ${model.modelId}`;
}

/** One line naming the HTTP status and the provider's reason. */
function describeFailure(error: unknown): string {
  if (APICallError.isInstance(error)) {
    if (error.statusCode === undefined) return `network error: ${error.message}`;
    // A 2xx here means the body broke off or was unreadable; the cause says how.
    if (error.statusCode < 300) return `HTTP ${error.statusCode} but the response failed: ${causeOf(error)}`;
    return `HTTP ${error.statusCode}: ${error.message}`;
  }
  if (error instanceof Error) {
    // Stream parse failures and the like: the name says more than a bare message ("Invalid JSON response").
    const name = error.name.replace(/^AI_/, '');
    return name && name !== 'Error' ? `${name}: ${error.message}` : error.message;
  }
  return String(error);
}

function causeOf(error: Error): string {
  const cause = error.cause;
  return cause instanceof Error ? `${cause.message}${cause.cause instanceof Error ? ` (${cause.cause.message})` : ''}` : error.message;
}

function describeInputError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error ?? 'invalid tool input');
  return oneLine(message);
}
