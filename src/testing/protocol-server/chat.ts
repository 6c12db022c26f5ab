/**
 * Scripted model turns shared by the chat protocols (OpenAI chat completions, Anthropic Messages):
 * one turn type, rendered by each protocol module in its own wire format, JSON or streamed.
 */

/** One tool call the "model" makes. `arguments` is the raw JSON text, so tests can send broken JSON. */
export interface ScriptedToolCall {
  name: string;
  arguments: string;
  /** Defaults to a per-route counter (`call_1`, `toolu_1`, …). */
  id?: string;
}

/** Protocol-neutral finish reasons, mapped to each protocol's own names. */
export type ScriptedFinish = 'stop' | 'length' | 'tool-calls' | 'content-filter';

interface TurnOptions {
  /** Chain-of-thought text streamed before the answer (OpenAI-compatible `reasoning_content`, Anthropic thinking). */
  reasoning?: string;
  /** Overrides the natural finish reason (stop for text, tool-calls for tool calls). */
  finishReason?: ScriptedFinish;
  /** Overrides the estimated token counts. */
  usage?: { input: number; output: number };
  /** Waits before answering. */
  delayMs?: number;
  /** Streaming only: stop after this many events and then hang or drop the connection. */
  interrupt?: { afterEvents: number; mode: 'hang' | 'drop' };
}

export type ChatTurn =
  /** A text answer; streamed as one delta per word. */
  | ({ type: 'text'; text: string } & TurnOptions)
  /** Tool calls, optionally after some text; streamed arguments arrive in `argumentChunkSize` pieces. */
  | ({ type: 'tool-calls'; calls: ScriptedToolCall[]; text?: string } & TurnOptions)
  /** The model says nothing: a well-formed answer with no content and a `stop` finish. */
  | { type: 'empty'; delayMs?: number };

/** What an unscripted request gets. */
export const DEFAULT_TURN: ChatTurn = { type: 'text', text: 'Hello from the protocol server.' };

/** Words with their trailing space, so the deltas concatenate back to the exact text. */
export function splitText(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text === '' ? [] : [text]);
}

/** Fixed-size pieces, like the real APIs cut tool-call arguments mid-token. */
export function splitEvery(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

/** A rough token count (4 characters a token), enough for usage fields to be plausible and non-zero. */
export function estimateTokens(value: unknown): number {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? '');
  return Math.max(1, Math.ceil(text.length / 4));
}

export function outputTokens(turn: Exclude<ChatTurn, { type: 'empty' }>): number {
  const text =
    (turn.text ?? '') + (turn.reasoning ?? '') + (turn.type === 'tool-calls' ? turn.calls.map((c) => c.name + c.arguments).join('') : '');
  return estimateTokens(text);
}

/** Both protocols stream when the request body says `stream: true`. */
export function isStreaming(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
}
