import { APICallError, RetryError, stepCountIs, streamText, tool, type FinishReason, type FlexibleSchema, type ModelMessage, type ToolSet } from 'ai';
import { DossierError, oneLine } from '../errors/index.ts';
import type { LanguageModelObject } from './resolve.ts';

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

/**
 * One model turn: streams text (and reasoning) to the callbacks and returns the text and tool calls.
 * The SDK runs a single step and executes nothing, so the agent loop stays in charge of tools.
 * Failures are one-line `DossierError('remote-failed')`s; an abort by the caller throws an AbortError.
 */
export async function callModel(params: CallModelParams): Promise<ModelCallResult> {
  const timeoutMs = params.timeoutMs ?? CALL_DEFAULTS.timeoutMs;
  const caller = params.abortSignal;
  caller?.throwIfAborted();
  // Our own timer rather than the SDK's `timeout`, so a timeout and a caller abort stay distinguishable.
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  const signal = caller ? AbortSignal.any([caller, timeout.signal]) : timeout.signal;
  const label = modelLabel(params.model);

  const text: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: ModelToolCall[] = [];
  let finishReason: FinishReason = 'other';
  let rawFinishReason: string | undefined;
  let usage = { inputTokens: 0, outputTokens: 0 };
  let failure: unknown;

  try {
    const result = streamText({
      model: params.model,
      system: params.system,
      messages: params.messages,
      tools: params.tools ? toToolSet(params.tools) : undefined,
      toolChoice: params.toolChoice,
      stopWhen: stepCountIs(1),
      maxRetries: params.maxRetries ?? CALL_DEFAULTS.maxRetries,
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
          text.push(part.text);
          params.onTextDelta?.(part.text);
          break;
        case 'reasoning-delta':
          if (part.text === '') break;
          reasoning.push(part.text);
          params.onReasoningDelta?.(part.text);
          break;
        case 'tool-call': {
          // Invalid calls (bad JSON, schema mismatch, unknown tool) come as calls marked `invalid`
          // rather than as errors; the SDK's own `tool-error` part for them is ignored below.
          const call = part as typeof part & { invalid?: boolean; error?: unknown };
          toolCalls.push({
            toolCallId: call.toolCallId,
            toolName: call.toolName,
            input: call.input,
            ...(call.invalid ? { inputError: describeInputError(call.error) } : {}),
          });
          break;
        }
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

    throwIfStopped(caller, timeout.signal, label, timeoutMs);
    if (failure !== undefined) throw failure;
    const response = await result.response;
    return {
      text: text.join(''),
      reasoning: reasoning.join(''),
      toolCalls,
      finishReason,
      usage,
      rawOutput: {
        // The SDK also adds its own error results for invalid calls; the agent sends those itself.
        messages: response.messages.filter((m) => m.role === 'assistant'),
        rawFinishReason,
        response: { id: response.id, modelId: response.modelId },
      },
    };
  } catch (error) {
    throwIfStopped(caller, timeout.signal, label, timeoutMs);
    if (DossierError.isInstance(error)) throw error;
    throw new DossierError('remote-failed', oneLine(`${label} failed: ${describeFailure(error)}`), { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

function toToolSet(tools: Record<string, ModelTool>): ToolSet {
  // No `execute`: the SDK returns the calls instead of running them.
  return Object.fromEntries(Object.entries(tools).map(([name, t]) => [name, tool({ description: t.description, inputSchema: t.inputSchema })]));
}

/** The caller's abort wins over a timeout, and both over whatever error the abort caused in flight. */
function throwIfStopped(caller: AbortSignal | undefined, timeout: AbortSignal, label: string, timeoutMs: number): void {
  if (caller?.aborted) throw toAbortError(caller.reason);
  if (timeout.aborted) throw new DossierError('remote-failed', `${label} timed out after ${timeoutMs} ms`);
}

function toAbortError(reason: unknown): Error {
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const detail = reason === undefined ? '' : `: ${reason instanceof Error ? reason.message : String(reason)}`;
  return new DOMException(`model call aborted${detail}`, 'AbortError');
}

function modelLabel(model: LanguageModelObject): string {
  return `${model.provider} ${model.modelId}`;
}

/** One line naming the HTTP status and the provider's reason, plus how many attempts were made. */
function describeFailure(error: unknown): string {
  if (RetryError.isInstance(error)) {
    const attempts = error.errors.length;
    const last = describeFailure(error.lastError);
    return error.reason === 'maxRetriesExceeded' ? `${last} (gave up after ${attempts} attempt${attempts === 1 ? '' : 's'})` : last;
  }
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
