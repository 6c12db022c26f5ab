import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import { DossierError } from '../../errors/index.ts';
import { checkLength, depsOf, principalOf, type AppContext, type Env } from '../app.ts';
import { runEventStream, startConversationRun } from '../runs/index.ts';
import { ErrorSchema, json } from './schemas.ts';

export const AskBody = z
  .object({
    question: z.string().min(1),
    mode: z.enum(['rag', 'research']).optional(),
    model: z.string().optional(),
    conversationId: z.string().optional(),
    /** Branch: answer as a follow-up of this earlier message of the conversation (default its last). */
    parentId: z.string().optional(),
    collections: z.array(z.string()).optional(),
    stream: z.boolean().optional(),
    maxSteps: z.number().int().min(1).max(100).optional(),
    /** Research mode: the model that judges the draft claim by claim (`--critique-model`); default the run's model. */
    critiqueModel: z.string().optional(),
  })
  .openapi('AskRequest');

const errors = {
  400: json(ErrorSchema, 'Bad input'),
  401: json(ErrorSchema, 'No valid API key'),
  404: json(ErrorSchema, 'Not found (or not yours)'),
};

/** The run's events as Server-Sent Events (`event: <type>`, `id: <n>`, `data: <event JSON>`), from after `afterSeq` to `run-finish`. */
export function streamRun(c: AppContext, runId: string, afterSeq: number): Response {
  const { runs } = depsOf(c);
  return streamSSE(c, async (stream) => {
    const gone = new AbortController();
    stream.onAbort(() => gone.abort());
    for await (const { seq, event } of runEventStream(runs, runId, { afterSeq, signal: gone.signal })) {
      await stream.writeSSE({ event: event.type, id: String(seq), data: JSON.stringify(event) });
      // Its result and messages are stored before the stream ends, so the client reads them next.
      if (event.type === 'run-finish' && !event.path) await runs.settled(runId);
    }
  });
}

/** A run of the caller's, or not-found (another user's run does not exist for them). */
export async function ownRun(c: AppContext, runId: string) {
  const run = await depsOf(c).state.run(runId);
  if (!run || run.userId !== principalOf(c).user.id) throw new DossierError('not-found', 'no such run');
  return run;
}

/** POST /v1/ask (JSON, or SSE with `stream: true`) and GET /v1/runs/:id(/events), resumable with Last-Event-ID. */
export function registerAsk(app: OpenAPIHono<Env>): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/ask',
      summary: 'Ask (rag or research); with stream: true, Server-Sent Events of the run, resumable',
      request: { body: { content: { 'application/json': { schema: AskBody } } } },
      responses: {
        200: {
          description: 'The `ask --json` object, or an event stream',
          content: { 'application/json': { schema: z.record(z.string(), z.unknown()) }, 'text/event-stream': { schema: z.string() } },
        },
        ...errors,
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      checkLength(c, body.question, 'question');
      const { runId, done } = await startConversationRun(depsOf(c), principalOf(c), {
        question: body.question,
        mode: body.mode ?? 'rag',
        model: body.model,
        collections: body.collections,
        conversationId: body.conversationId,
        parentId: body.parentId,
        maxSteps: body.maxSteps,
        critiqueModel: body.critiqueModel,
      });
      c.header('x-dossier-run-id', runId);
      if (body.stream) return streamRun(c, runId, 0);
      return c.json((await done) as unknown as Record<string, unknown>, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/runs/{id}',
      summary: 'A run: its status and, once finished, its result',
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: json(z.record(z.string(), z.unknown()), 'The run'), ...errors },
    }),
    async (c) => {
      const { userId: _user, ...run } = await ownRun(c, c.req.valid('param').id);
      return c.json(run as Record<string, unknown>, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/runs/{id}/events',
      summary: "A run's events as SSE, from after Last-Event-ID (or ?after=N)",
      request: { params: z.object({ id: z.string() }), query: z.object({ after: z.coerce.number().int().min(0).optional() }) },
      responses: { 200: { description: 'Event stream', content: { 'text/event-stream': { schema: z.string() } } }, ...errors },
    }),
    async (c) => {
      const run = await ownRun(c, c.req.valid('param').id);
      const after = Number(c.req.header('last-event-id') ?? c.req.valid('query').after ?? 0);
      return streamRun(c, run.id, Number.isFinite(after) ? after : 0);
    },
  );
}
