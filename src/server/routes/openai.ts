import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import type { AskResult } from '../../ask/ask.ts';
import type { Citation, FinishReason } from '../../protocol/events.ts';
import { checkLength, errorResponse, depsOf, principalOf, type AppContext, type Env } from '../app.ts';
import { startChatRun, type ChatMessage } from '../runs/index.ts';
import { reconcileAnswer, runEvents } from './chat.ts';

/** The two models this endpoint offers: the ask modes under OpenAI-style names. */
const MODELS: Record<string, 'rag' | 'research'> = { dossier: 'rag', 'dossier-research': 'research' };
const CREATED = Math.floor(Date.now() / 1000);

/** OpenAI's error body: their clients read `error.message`, `type` and `code`. */
const OpenAIError = z
  .object({ error: z.object({ message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string().nullable() }) })
  .openapi('OpenAIError');

function openAIError(c: AppContext, status: number, message: string, code: string, param: string | null = null): Response {
  const type = status === 401 ? 'authentication_error' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return c.json({ error: { message, type, param, code } }, status as 400);
}

const unknownModel = (model: string) => ({
  error: {
    message: `The model '${model}' does not exist; use ${Object.keys(MODELS).join(' or ')}`,
    type: 'invalid_request_error',
    param: 'model',
    code: 'model_not_found',
  },
});

/** Our `{error:{code,message}}` with its status, reshaped the way OpenAI clients read errors. */
async function asOpenAIError(c: AppContext, error: unknown): Promise<Response> {
  const response = errorResponse(c, error);
  const body = (await response.json()) as { error: { code: string; message: string } };
  return openAIError(c, response.status, body.error.message, body.error.code);
}

/** A failed run's status: a provider that failed or timed out is a gateway problem, the rest ours. */
const failureStatus = (code: string) => (code === 'remote-timeout' ? 504 : code.startsWith('remote-') ? 502 : 500);
const openAIFinish = (reason: FinishReason) => (reason === 'max-steps' || reason === 'budget' ? 'length' : 'stop');

const Content = z.union([z.string(), z.array(z.object({ type: z.string(), text: z.string().optional() }).loose()), z.null()]);
const Message = z
  .object({ role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']), content: Content.optional() })
  .loose();

export const ChatCompletionBody = z
  .object({
    model: z.string(),
    messages: z.array(Message).min(1),
    stream: z.boolean().nullable().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).loose().nullable().optional(),
    /** Not OpenAI's: which collections to read, and a server conversation to continue. */
    collections: z.array(z.string()).optional(),
    conversationId: z.string().optional(),
  })
  .loose()
  .openapi('ChatCompletionRequest');

const Model = z.object({ id: z.string(), object: z.literal('model'), created: z.number(), owned_by: z.string() }).openapi('OpenAIModel');
const modelOf = (id: string) => ({ id, object: 'model' as const, created: CREATED, owned_by: 'dossier' });

function textOf(content: z.infer<typeof Content> | undefined): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('');
}

function chatMessages(messages: z.infer<typeof Message>[]): ChatMessage[] {
  // Tool and function turns are the client's own tool loop, not part of what is asked here.
  return messages
    .filter((m) => m.role === 'user' || m.role === 'assistant' || m.role === 'system' || m.role === 'developer')
    .map((m) => ({ role: m.role === 'user' || m.role === 'assistant' ? m.role : 'system', text: textOf(m.content) }));
}

/** The answer's sources as text, for clients that show only `content`. */
export function sourcesText(citations: readonly Citation[]): string {
  if (citations.length === 0) return '';
  const lines = citations.map((c) => {
    const where = [c.headingPath.join(' › '), c.page !== undefined ? `p. ${c.page}` : ''].filter(Boolean).join(', ');
    return `[${c.id}] ${c.title} — ${c.source}${where ? ` (${where})` : ''}`;
  });
  return `\n\nSources:\n${lines.join('\n')}`;
}

const usageOf = (result: AskResult) => ({
  prompt_tokens: result.usage.inputTokens,
  completion_tokens: result.usage.outputTokens,
  total_tokens: result.usage.inputTokens + result.usage.outputTokens,
});

/** GET /v1/models and POST /v1/chat/completions: OpenAI's chat API over ask (models `dossier`, `dossier-research`). */
export function registerOpenAI(app: OpenAPIHono<Env>): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/models',
      summary: 'OpenAI-compatible: the models (dossier = rag, dossier-research = research)',
      responses: {
        200: {
          description: 'Models',
          content: { 'application/json': { schema: z.object({ object: z.literal('list'), data: z.array(Model) }) } },
        },
      },
    }),
    (c) => c.json({ object: 'list' as const, data: Object.keys(MODELS).map(modelOf) }, 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/models/{model}',
      summary: 'OpenAI-compatible: one model',
      request: { params: z.object({ model: z.string() }) },
      responses: {
        200: { description: 'The model', content: { 'application/json': { schema: Model } } },
        404: { description: 'No such model', content: { 'application/json': { schema: OpenAIError } } },
      },
    }),
    (c) => {
      const { model } = c.req.valid('param');
      if (!MODELS[model]) return c.json(unknownModel(model), 404);
      return c.json(modelOf(model), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/chat/completions',
      summary:
        'OpenAI-compatible chat completions (model dossier or dossier-research); the answer with a Sources list and a `citations` field; stream: true for chunk SSE ending in [DONE]',
      request: { body: { content: { 'application/json': { schema: ChatCompletionBody } } } },
      responses: {
        200: {
          description: 'A chat.completion, or chat.completion.chunk events',
          content: { 'application/json': { schema: z.record(z.string(), z.unknown()) }, 'text/event-stream': { schema: z.string() } },
        },
        400: { description: 'Bad input', content: { 'application/json': { schema: OpenAIError } } },
        401: { description: 'No valid API key', content: { 'application/json': { schema: OpenAIError } } },
        404: { description: 'No such model', content: { 'application/json': { schema: OpenAIError } } },
        500: { description: 'The run failed', content: { 'application/json': { schema: OpenAIError } } },
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const mode = MODELS[body.model];
      if (!mode) return c.json(unknownModel(body.model), 404);
      let started: Awaited<ReturnType<typeof startChatRun>>;
      try {
        started = await startChatRun(
          depsOf(c),
          principalOf(c),
          { messages: chatMessages(body.messages), mode, collections: body.collections, conversationId: body.conversationId },
          (text, what) => checkLength(c, text, what),
        );
      } catch (error) {
        return asOpenAIError(c, error);
      }
      const { runId, done } = started;
      const id = `chatcmpl-${runId}`;
      const created = Math.floor(Date.now() / 1000);
      c.header('x-dossier-run-id', runId);
      if (!body.stream) {
        const result = await done;
        // A run that failed (or was aborted) says so; its stand-in answer is not a completion.
        if (result.error)
          return openAIError(
            c,
            failureStatus(result.error.code),
            `the run ${result.finishReason === 'aborted' ? 'was aborted' : 'failed'}: ${result.error.message}`,
            result.error.code,
          );
        return c.json(
          {
            id,
            object: 'chat.completion',
            created,
            model: body.model,
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: result.answer + sourcesText(result.citations), refusal: null },
                logprobs: null,
                finish_reason: openAIFinish(result.finishReason),
              },
            ],
            usage: usageOf(result),
            // Not OpenAI's: the cited chunks, and the run behind the answer.
            citations: result.citations,
            dossier: { runId, finishReason: result.finishReason, partial: result.partial, unresolvedCitations: result.unresolvedCitations },
          },
          200,
        );
      }
      const { runs } = depsOf(c);
      const signal = c.req.raw.signal;
      return streamSSE(c, async (stream) => {
        // A client that hangs up stops the run.
        stream.onAbort(() => {
          runs.cancel(runId);
        });
        const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) =>
          stream.writeSSE({
            data: JSON.stringify({
              id,
              object: 'chat.completion.chunk',
              created,
              model: body.model,
              choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
              ...extra,
            }),
          });
        await chunk({ role: 'assistant', content: '' });
        // Only the top-level agent's words are the reply; each model turn is a segment (see reconcileAnswer).
        let lastTurn: string | undefined;
        let turnEnded = false;
        let streamed = false;
        for await (const event of runEvents(runs, runId, done, signal)) {
          if (event.path) continue;
          if (event.type === 'model-output') turnEnded = true;
          if (event.type !== 'text-delta' || !event.delta) continue;
          if (turnEnded || lastTurn === undefined) {
            if (streamed) await chunk({ content: '\n\n' });
            lastTurn = '';
            turnEnded = false;
          }
          lastTurn += event.delta;
          streamed = true;
          await chunk({ content: event.delta });
        }
        if (stream.aborted) return;
        const result = await done;
        if (result.error) {
          // The OpenAI client raises an APIError for a data frame with `error`.
          await stream.writeSSE({
            data: JSON.stringify({
              error: {
                message: `the run ${result.finishReason === 'aborted' ? 'was aborted' : 'failed'}: ${result.error.message}`,
                type: 'server_error',
                param: null,
                code: result.error.code,
              },
            }),
          });
          await stream.writeSSE({ data: '[DONE]' });
          return;
        }
        const fix = reconcileAnswer(lastTurn, result.answer);
        if (fix && 'append' in fix && fix.append) await chunk({ content: fix.append });
        else if (fix && 'replace' in fix) await chunk({ content: (streamed ? '\n\n' : '') + fix.replace });
        const sources = sourcesText(result.citations);
        if (sources) await chunk({ content: sources });
        await chunk({}, openAIFinish(result.finishReason), {
          citations: result.citations,
          dossier: { runId, finishReason: result.finishReason, partial: result.partial },
        });
        if (body.stream_options?.include_usage)
          await stream.writeSSE({
            data: JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage: usageOf(result) }),
          });
        await stream.writeSSE({ data: '[DONE]' });
      });
    },
  );
}
