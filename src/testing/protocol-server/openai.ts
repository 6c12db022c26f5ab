/**
 * The OpenAI protocol on the scriptable test server: `POST /v1/embeddings` and
 * `POST /v1/chat/completions` (JSON, or SSE when the request says `stream: true`).
 *
 *   const server = await startOpenAIServer({ dimensions: 32 });
 *   const openai = createOpenAI({ baseURL: server.baseURL, apiKey: 'test' });
 *   server.embeddings.enqueue(rateLimited(0), 2);   // next two requests get 429 + Retry-After: 0
 *   server.chat.enqueue({ type: 'tool-calls', calls: [{ name: 'search', arguments: '{"query":"x"}' }] });
 *   server.chat.enqueue((body) => ({ type: 'text', text: `you sent ${JSON.stringify(body)}` }));
 *   ... server.embeddings.requests, server.chat.requests, batchSizes(server.embeddings) ...
 *   await server.close();
 */
import {
  DEFAULT_TURN,
  estimateTokens,
  isStreaming,
  outputTokens,
  splitEvery,
  splitText,
  type ChatTurn,
  type ScriptedFinish,
} from './chat.ts';
import { ProtocolServer, type CommonTurn, type Reply, type Route, type SseEvent } from './server.ts';

export { ProtocolServer, type CommonTurn, type RecordedRequest, type Route } from './server.ts';
export type { ChatTurn, ScriptedFinish, ScriptedToolCall } from './chat.ts';

/** Turns specific to the embeddings route (besides the common faults). */
export type EmbeddingsTurn =
  /** A normal answer, optionally late. */
  | { type: 'ok'; delayMs?: number }
  /** A well-formed answer with `count` embeddings instead of one per input. */
  | { type: 'wrong-count'; count: number; delayMs?: number };

export interface OpenAIServerOptions {
  /** Vector length when the request does not ask for `dimensions` (default 64). */
  dimensions?: number;
  /** Every normal answer waits this long, so concurrency is observable (default 0). */
  delayMs?: number;
  /** When set, requests must carry `Authorization: Bearer <apiKey>` or get a 401. */
  apiKey?: string;
  /** Characters per streamed tool-call `arguments` piece (default 7, so any real call spans chunks). */
  argumentChunkSize?: number;
}

export interface OpenAIServer {
  server: ProtocolServer;
  /** http://127.0.0.1:<port> */
  url: string;
  /** http://127.0.0.1:<port>/v1 — what OpenAI clients take as baseURL. */
  baseURL: string;
  embeddings: Route<EmbeddingsTurn>;
  /** `POST /v1/chat/completions`, answering scripted `ChatTurn`s (unscripted: a short text). */
  chat: Route<ChatTurn>;
  reset(): void;
  close(): Promise<void>;
}

export async function startOpenAIServer(options: OpenAIServerOptions = {}): Promise<OpenAIServer> {
  const server = await ProtocolServer.start();
  const embeddings = server.route<EmbeddingsTurn>({
    name: 'embeddings',
    method: 'POST',
    path: '/v1/embeddings',
    errorBody: openaiError,
    async handle({ body, request, turn }) {
      if (options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`) {
        return { status: 401, json: openaiError(401, 'Incorrect API key provided.', 'invalid_api_key') };
      }
      const parsed = parseEmbeddingsRequest(body);
      if ('error' in parsed) return { status: 400, json: openaiError(400, parsed.error) };
      // A turn's own delay was applied by the server; the default delay applies otherwise.
      if (turn?.delayMs === undefined && options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));

      const dimensions = parsed.dimensions ?? options.dimensions ?? 64;
      let vectors = parsed.input.map((text) => deterministicEmbedding(text, dimensions));
      if (turn?.type === 'wrong-count') {
        vectors = Array.from({ length: turn.count }, (_, i) => vectors[i % vectors.length]);
      }
      return {
        json: {
          object: 'list',
          data: vectors.map((vector, index) => ({
            object: 'embedding',
            index,
            embedding: parsed.encoding === 'base64' ? float32ToBase64(vector) : Array.from(vector),
          })),
          model: parsed.model,
          usage: { prompt_tokens: parsed.tokens, total_tokens: parsed.tokens },
        },
      };
    },
  });
  const chat = addChatCompletionsRoute(server, options);
  return {
    server,
    url: server.url,
    baseURL: `${server.url}/v1`,
    embeddings,
    chat,
    reset: () => server.reset(),
    close: () => server.close(),
  };
}

/** Registers `POST /v1/chat/completions` on a server (also usable beside other protocols). */
export function addChatCompletionsRoute(server: ProtocolServer, options: OpenAIServerOptions = {}): Route<ChatTurn> {
  let counter = 0;
  return server.route<ChatTurn>({
    name: 'chat',
    method: 'POST',
    path: '/v1/chat/completions',
    errorBody: openaiError,
    malformedBody: (body) =>
      isStreaming(body)
        ? { contentType: 'text/event-stream', text: 'data: {"id":"chatcmpl-broken","choices":[{"index":0,"delta":{"content":\n\n' }
        : { contentType: 'application/json', text: '{"id":"chatcmpl-broken","choices":[' },
    handle({ body, request, turn }) {
      if (options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`) {
        return { status: 401, json: openaiError(401, 'Incorrect API key provided.', 'invalid_api_key') };
      }
      if (typeof body !== 'object' || body === null)
        return { status: 400, json: openaiError(400, 'We could not parse the JSON body of your request.') };
      const { model, messages } = body as Record<string, unknown>;
      if (typeof model !== 'string' || model === '') return { status: 400, json: openaiError(400, "'model' is required") };
      if (!Array.isArray(messages) || messages.length === 0)
        return { status: 400, json: openaiError(400, "'messages' must be a non-empty array") };
      const id = `chatcmpl-${++counter}`;
      const scripted = turn ?? DEFAULT_TURN;
      // Unique per server run (request counter + position), like the real API's, yet predictable in tests.
      const callIds = scripted.type === 'tool-calls' ? scripted.calls.map((call, i) => call.id ?? `call_${counter}_${i}`) : [];
      const usage = {
        prompt_tokens: scripted.type !== 'empty' && scripted.usage ? scripted.usage.input : estimateTokens(messages),
        completion_tokens: scripted.type === 'empty' ? 0 : (scripted.usage?.output ?? outputTokens(scripted)),
      };
      const usageJson = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
      return isStreaming(body)
        ? streamChat(id, model, scripted, callIds, body as Record<string, unknown>, usageJson, options.argumentChunkSize ?? 7)
        : jsonChat(id, model, scripted, callIds, usageJson);
    },
  });
}

const OPENAI_FINISH: Record<ScriptedFinish, string> = {
  stop: 'stop',
  length: 'length',
  'tool-calls': 'tool_calls',
  'content-filter': 'content_filter',
};

function finishOf(turn: ChatTurn): string {
  if (turn.type === 'empty') return 'stop';
  return OPENAI_FINISH[turn.finishReason ?? (turn.type === 'tool-calls' ? 'tool-calls' : 'stop')];
}

function jsonChat(id: string, model: string, turn: ChatTurn, callIds: string[], usage: object): Reply {
  const base = { id, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model };
  if (turn.type === 'empty') {
    return {
      json: {
        ...base,
        choices: [{ index: 0, message: { role: 'assistant', content: null }, logprobs: null, finish_reason: 'stop' }],
        usage,
      },
    };
  }
  const message: Record<string, unknown> = { role: 'assistant', content: turn.text ?? null };
  if (turn.reasoning) message.reasoning_content = turn.reasoning;
  if (turn.type === 'tool-calls') {
    message.tool_calls = turn.calls.map((call, i) => ({
      id: callIds[i],
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return { json: { ...base, choices: [{ index: 0, message, logprobs: null, finish_reason: finishOf(turn) }], usage } };
}

function streamChat(
  id: string,
  model: string,
  turn: ChatTurn,
  callIds: string[],
  body: Record<string, unknown>,
  usage: object,
  argumentChunkSize: number,
): Reply {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): SseEvent => ({
    data: JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra }),
  });
  const delta = (value: Record<string, unknown>, finish: string | null = null) =>
    chunk([{ index: 0, delta: value, logprobs: null, finish_reason: finish }]);
  const events: SseEvent[] = [delta({ role: 'assistant', content: '' })];
  if (turn.type !== 'empty') {
    for (const piece of splitText(turn.reasoning ?? '')) events.push(delta({ reasoning_content: piece }));
    for (const piece of splitText(turn.text ?? '')) events.push(delta({ content: piece }));
    if (turn.type === 'tool-calls') {
      turn.calls.forEach((call, index) => {
        // First chunk names the call with empty arguments; the arguments follow in pieces, as OpenAI does.
        events.push(delta({ tool_calls: [{ index, id: callIds[index], type: 'function', function: { name: call.name, arguments: '' } }] }));
        for (const piece of splitEvery(call.arguments, argumentChunkSize)) {
          events.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
        }
      });
    }
  }
  events.push(delta({}, finishOf(turn)));
  const streamOptions = body.stream_options as { include_usage?: unknown } | undefined;
  if (streamOptions?.include_usage === true) events.push(chunk([], { usage }));
  events.push({ data: '[DONE]' });
  return { events, interrupt: turn.type === 'empty' ? undefined : turn.interrupt };
}

/** Texts per embeddings request, in arrival order. */
export function batchSizes(route: Route<EmbeddingsTurn>): number[] {
  return route.requests.map((r) => {
    const input = (r.body as { input?: unknown } | undefined)?.input;
    return Array.isArray(input) ? input.length : 1;
  });
}

/** 429 with Retry-After in whole seconds (0 keeps tests fast). */
export function rateLimited(retryAfterSeconds: number): CommonTurn {
  return { type: 'status', status: 429, headers: { 'retry-after': String(retryAfterSeconds) } };
}

export function serverError(status = 500): CommonTurn {
  return { type: 'status', status };
}

/** OpenAI's error body shape. */
export function openaiError(status: number, message: string, code: string | null = null): unknown {
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { error: { message, type, param: null, code } };
}

/**
 * A deterministic, roughly "semantic" vector: a sum of hash-seeded random vectors of the text's
 * lowercased words, plus a small whole-text component so that different texts never coincide.
 * Texts sharing words are closer, which keeps retrieval tests over this server meaningful.
 */
export function deterministicEmbedding(text: string, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of words) addSeeded(vector, fnv1a(`w:${word}`), 1);
  addSeeded(vector, fnv1a(`t:${text}`), words.length === 0 ? 1 : 0.25);
  return vector;
}

function addSeeded(vector: Float32Array, seed: number, weight: number): void {
  // mulberry32: tiny, fast, good enough spread for test vectors.
  let state = seed >>> 0;
  for (let i = 0; i < vector.length; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const unit = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    vector[i] += weight * (unit * 2 - 1);
  }
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** OpenAI's base64 encoding: the little-endian float32 bytes of the vector. */
export function float32ToBase64(vector: Float32Array): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i], i * 4);
  return bytes.toString('base64');
}

export function base64ToFloat32(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  const vector = new Float32Array(bytes.length / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
  return vector;
}

type ParsedEmbeddingsRequest =
  | { model: string; input: string[]; encoding: 'float' | 'base64'; dimensions?: number; tokens: number }
  | { error: string };

function parseEmbeddingsRequest(body: unknown): ParsedEmbeddingsRequest {
  if (typeof body !== 'object' || body === null) return { error: 'We could not parse the JSON body of your request.' };
  const { model, input, encoding_format: encoding, dimensions } = body as Record<string, unknown>;
  if (typeof model !== 'string' || model === '') return { error: "'model' is required" };
  const texts = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === 'string')) {
    // Token-id arrays are valid OpenAI input but nothing here sends them.
    return { error: "'input' must be a string or a non-empty array of strings" };
  }
  if (encoding !== undefined && encoding !== 'float' && encoding !== 'base64') {
    return { error: "'encoding_format' must be 'float' or 'base64'" };
  }
  if (dimensions !== undefined && (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1)) {
    return { error: "'dimensions' must be a positive integer" };
  }
  const tokens = texts.reduce((sum, t) => sum + (t.match(/\S+/g)?.length ?? 0), 0);
  return { model, input: texts, encoding: encoding ?? 'float', dimensions: dimensions as number | undefined, tokens };
}
