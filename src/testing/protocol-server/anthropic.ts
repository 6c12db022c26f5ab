/**
 * The Anthropic Messages protocol on the scriptable test server: `POST /v1/messages`, JSON or SSE
 * (`stream: true`: message_start, content_block_start/delta/stop, message_delta with stop_reason,
 * message_stop), replaying the same `ChatTurn`s as the OpenAI chat route.
 *
 *   const server = await startAnthropicServer();
 *   const anthropic = createAnthropic({ baseURL: server.baseURL, apiKey: 'test' });
 *   server.messages.enqueue({ type: 'tool-calls', calls: [{ name: 'search', arguments: '{"query":"x"}' }] });
 *   ... server.messages.requests ...
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
import { ProtocolServer, type Reply, type Route, type SseEvent } from './server.ts';

export { ProtocolServer, type CommonTurn, type RecordedRequest, type Route } from './server.ts';
export type { ChatTurn, ScriptedFinish, ScriptedToolCall } from './chat.ts';

export interface AnthropicServerOptions {
  /** When set, requests must carry `x-api-key: <apiKey>` or get a 401. */
  apiKey?: string;
  /** Characters per streamed `input_json_delta` (default 7, so any real call spans events). */
  argumentChunkSize?: number;
}

export interface AnthropicServer {
  server: ProtocolServer;
  url: string;
  /** http://127.0.0.1:<port>/v1 — what `createAnthropic` takes as baseURL. */
  baseURL: string;
  messages: Route<ChatTurn>;
  reset(): void;
  close(): Promise<void>;
}

export async function startAnthropicServer(options: AnthropicServerOptions = {}): Promise<AnthropicServer> {
  const server = await ProtocolServer.start();
  const messages = addMessagesRoute(server, options);
  return {
    server,
    url: server.url,
    baseURL: `${server.url}/v1`,
    messages,
    reset: () => server.reset(),
    close: () => server.close(),
  };
}

/** Anthropic's error body shape. */
export function anthropicError(status: number, message: string): unknown {
  const type =
    status === 429
      ? 'rate_limit_error'
      : status === 529
        ? 'overloaded_error'
        : status === 401
          ? 'authentication_error'
          : status >= 500
            ? 'api_error'
            : 'invalid_request_error';
  return { type: 'error', error: { type, message } };
}

const STOP_REASON: Record<ScriptedFinish, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  'tool-calls': 'tool_use',
  'content-filter': 'refusal',
};

/** Registers `POST /v1/messages` on a server. */
export function addMessagesRoute(server: ProtocolServer, options: AnthropicServerOptions = {}): Route<ChatTurn> {
  let counter = 0;
  return server.route<ChatTurn>({
    name: 'messages',
    method: 'POST',
    path: '/v1/messages',
    errorBody: anthropicError,
    malformedBody: (body) =>
      isStreaming(body)
        ? { contentType: 'text/event-stream', text: 'event: message_start\ndata: {"type":"message_start","message":{"id":\n\n' }
        : { contentType: 'application/json', text: '{"type":"message","content":[' },
    handle({ body, request, turn }) {
      if (options.apiKey !== undefined && request.headers['x-api-key'] !== options.apiKey) {
        return { status: 401, json: anthropicError(401, 'invalid x-api-key') };
      }
      if (typeof body !== 'object' || body === null) return { status: 400, json: anthropicError(400, 'request body is not valid JSON') };
      const { model, messages, max_tokens: maxTokens, system } = body as Record<string, unknown>;
      if (typeof model !== 'string' || model === '') return { status: 400, json: anthropicError(400, 'model: Field required') };
      if (typeof maxTokens !== 'number') return { status: 400, json: anthropicError(400, 'max_tokens: Field required') };
      if (!Array.isArray(messages) || messages.length === 0)
        return { status: 400, json: anthropicError(400, 'messages: at least one message is required') };

      const id = `msg_${++counter}`;
      const scripted = turn ?? DEFAULT_TURN;
      const callIds = scripted.type === 'tool-calls' ? scripted.calls.map((call, i) => call.id ?? `toolu_${counter}_${i}`) : [];
      const usage = {
        input_tokens: scripted.type !== 'empty' && scripted.usage ? scripted.usage.input : estimateTokens([system, messages]),
        output_tokens: scripted.type === 'empty' ? 0 : (scripted.usage?.output ?? outputTokens(scripted)),
      };
      return isStreaming(body)
        ? streamMessage(id, model, scripted, callIds, usage, options.argumentChunkSize ?? 7)
        : jsonMessage(id, model, scripted, callIds, usage);
    },
  });
}

function stopReasonOf(turn: ChatTurn): string {
  if (turn.type === 'empty') return 'end_turn';
  return STOP_REASON[turn.finishReason ?? (turn.type === 'tool-calls' ? 'tool-calls' : 'stop')];
}

/** A fake but well-formed thinking signature (clients pass it back on the next turn). */
const SIGNATURE = 'c2lnbmF0dXJl';

function jsonMessage(
  id: string,
  model: string,
  turn: ChatTurn,
  callIds: string[],
  usage: { input_tokens: number; output_tokens: number },
): Reply {
  const content: unknown[] = [];
  if (turn.type !== 'empty') {
    if (turn.reasoning) content.push({ type: 'thinking', thinking: turn.reasoning, signature: SIGNATURE });
    if (turn.text) content.push({ type: 'text', text: turn.text });
    if (turn.type === 'tool-calls') {
      turn.calls.forEach((call, i) => {
        // The JSON protocol carries `input` as an object; unparsable arguments go through as the raw
        // string, which a client then sees as input of the wrong type.
        let input: unknown = call.arguments;
        try {
          input = JSON.parse(call.arguments);
        } catch {
          // Kept as the raw string on purpose.
        }
        content.push({ type: 'tool_use', id: callIds[i], name: call.name, input });
      });
    }
  }
  return {
    json: { id, type: 'message', role: 'assistant', model, content, stop_reason: stopReasonOf(turn), stop_sequence: null, usage },
  };
}

function streamMessage(
  id: string,
  model: string,
  turn: ChatTurn,
  callIds: string[],
  usage: { input_tokens: number; output_tokens: number },
  argumentChunkSize: number,
): Reply {
  const events: SseEvent[] = [];
  const emit = (event: string, data: Record<string, unknown>) => events.push({ event, data: JSON.stringify({ type: event, ...data }) });
  emit('message_start', {
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: usage.input_tokens, output_tokens: 1 },
    },
  });
  let index = 0;
  if (turn.type !== 'empty') {
    emit('ping', {});
    if (turn.reasoning) {
      emit('content_block_start', { index, content_block: { type: 'thinking', thinking: '' } });
      for (const piece of splitText(turn.reasoning))
        emit('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } });
      emit('content_block_delta', { index, delta: { type: 'signature_delta', signature: SIGNATURE } });
      emit('content_block_stop', { index });
      index++;
    }
    if (turn.text) {
      emit('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const piece of splitText(turn.text)) emit('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
      emit('content_block_stop', { index });
      index++;
    }
    if (turn.type === 'tool-calls') {
      turn.calls.forEach((call, i) => {
        emit('content_block_start', { index, content_block: { type: 'tool_use', id: callIds[i], name: call.name, input: {} } });
        for (const piece of splitEvery(call.arguments, argumentChunkSize)) {
          emit('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
        }
        emit('content_block_stop', { index });
        index++;
      });
    }
  }
  emit('message_delta', { delta: { stop_reason: stopReasonOf(turn), stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  emit('message_stop', {});
  return { events, interrupt: turn.type === 'empty' ? undefined : turn.interrupt };
}
