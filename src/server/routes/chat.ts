import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import {
  createUIMessageStream,
  createUIMessageStreamResponse,
  type FinishReason as UIFinishReason,
  type UIMessage,
  type UIMessageStreamWriter,
} from 'ai';
import type { AskResult } from '../../ask/ask.ts';
import type { AgentEvent, Citation, FinishReason } from '../../protocol/events.ts';
import { oneLine } from '../../errors/index.ts';
import { checkLength, depsOf, principalOf, type AppContext, type Env } from '../app.ts';
import { runEventStream, startChatRun, type RunManager } from '../runs/index.ts';
import { ErrorSchema, json } from './schemas.ts';

/** A run's events as agent events, stored ones first then live (runEventStream), until the top-level `run-finish`. */
export async function* runEvents(
  runs: RunManager,
  runId: string,
  done: Promise<unknown>,
  signal?: AbortSignal,
): AsyncGenerator<AgentEvent> {
  for await (const { event } of runEventStream(runs, runId, { done, signal })) yield event as unknown as AgentEvent;
}

/**
 * The text a client is shown must end as the run's answer, but what streamed is the model's words
 * turn by turn (a preamble before tool calls, a draft the critique sent back, an answer whose
 * citations were then checked). Given the last streamed turn, what to add: its missing tail when
 * it is a prefix of the answer, else the whole answer as a fresh part.
 */
export function reconcileAnswer(lastTurn: string | undefined, answer: string): { append: string } | { replace: string } | undefined {
  if (lastTurn === answer) return undefined;
  if (lastTurn !== undefined && answer.startsWith(lastTurn)) return { append: answer.slice(lastTurn.length) };
  return { replace: answer };
}

/** Our finish reasons in the AI SDK's vocabulary (ours travels in `data-run` and the message metadata). */
const UI_FINISH: Record<FinishReason, UIFinishReason> = {
  stop: 'stop',
  'no-evidence': 'stop',
  'max-steps': 'length',
  budget: 'length',
  stagnation: 'other',
  'needs-approval': 'other',
  error: 'error',
  aborted: 'other',
};

const TextPart = z.object({ type: z.literal('text'), text: z.string() });
const UIMessageSchema = z
  .object({
    id: z.string().optional(),
    role: z.enum(['system', 'user', 'assistant']),
    parts: z.array(z.union([TextPart, z.object({ type: z.string() }).loose()])).optional(),
    /** Older clients send plain `content`. */
    content: z.string().optional(),
  })
  .loose();

export const ChatBody = z
  .object({
    id: z.string().optional(),
    messages: z.array(UIMessageSchema).min(1),
    trigger: z.string().optional(),
    messageId: z.string().optional(),
    mode: z.enum(['rag', 'research']).optional(),
    model: z.string().optional(),
    collections: z.array(z.string()).optional(),
    conversationId: z.string().optional(),
    maxSteps: z.number().int().min(1).max(100).optional(),
    /** Research mode: the model that judges the draft claim by claim; default the run's model. */
    critiqueModel: z.string().optional(),
  })
  .loose()
  .openapi('ChatRequest');

function textOf(message: z.infer<typeof UIMessageSchema>): string {
  if (message.parts) return message.parts.map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('');
  return message.content ?? '';
}

/** The stream of one run as UI message chunks: what `useChat` renders. */
function chatStream(
  c: AppContext,
  started: { runId: string; done: Promise<AskResult>; question: string },
  mode: string,
  collections?: string[],
): Response {
  const { runs, dossier } = depsOf(c);
  const { runId, done, question } = started;
  const scope = principalOf(c).readScope(collections);
  const signal = c.req.raw.signal;
  // useChat's stop() drops the connection: the run stops too instead of spending steps no one reads.
  signal.addEventListener('abort', () => runs.cancel(runId), { once: true });

  const stream = createUIMessageStream<UIMessage>({
    onError: (error) => oneLine(error),
    execute: async ({ writer }) => {
      const mapper = new ChunkMapper(writer, async (documentId) => (await dossier.getDocument(documentId, { scope })).mediaType);
      writer.write({ type: 'start', messageMetadata: { runId } });
      writer.write({ type: 'data-run', id: 'run', data: { runId, mode, question, status: 'running' } });
      for await (const event of runEvents(runs, runId, done, signal)) await mapper.event(event);
      if (signal.aborted) return;
      const result = await done;
      mapper.finishText(result.answer);
      // Sources the events did not name (an approved run) still reach the client.
      for (const citation of result.citations) await mapper.source(citation);
      writer.write({
        type: 'data-run',
        id: 'run',
        data: {
          runId,
          mode,
          question,
          status: result.error ? 'failed' : 'finished',
          finishReason: result.finishReason,
          partial: result.partial,
          steps: result.steps,
          toolCalls: result.toolCalls,
          usage: result.usage,
          model: result.model,
          ms: result.ms,
          unresolvedCitations: result.unresolvedCitations,
          ...(result.critique ? { findings: result.critique.findings } : {}),
          ...(result.warnings ? { warnings: result.warnings } : {}),
          ...(result.error ? { error: result.error } : {}),
        },
      });
      // A failed (or elsewhere aborted) run ends on an error chunk (useChat's error state), never on a quiet finish.
      if (result.error) writer.write({ type: 'error', errorText: result.error.message });
      else
        writer.write({
          type: 'finish',
          finishReason: UI_FINISH[result.finishReason] ?? 'other',
          messageMetadata: { runId, finishReason: result.finishReason },
        });
    },
  });
  return createUIMessageStreamResponse({ stream, headers: { 'x-dossier-run-id': runId }, keepAliveMs: 15_000 });
}

interface Segment {
  id: string;
  text: string;
}

/** Our events as UI message chunks, keeping the open text and reasoning parts straight. */
class ChunkMapper {
  private parts = 0;
  private text: Segment | undefined;
  private reasoning: Segment | undefined;
  /** A model turn ended: the next delta starts a new part. */
  private turnEnded = false;
  private stepOpen = false;
  private readonly sources = new Set<string>();
  private readonly toolCalls = new Set<string>();
  private readonly subagents = new Map<string, string>();
  private critiques = 0;
  private readonly mediaTypes = new Map<number, Promise<string>>();

  constructor(
    private readonly writer: UIMessageStreamWriter<UIMessage>,
    private readonly mediaTypeOf: (documentId: number) => Promise<string>,
  ) {}

  async event(event: AgentEvent): Promise<void> {
    const w = this.writer;
    const nested = event.path !== undefined;
    switch (event.type) {
      case 'step-start':
        if (nested) return;
        this.closeParts();
        if (this.stepOpen) w.write({ type: 'finish-step' });
        w.write({ type: 'start-step' });
        this.stepOpen = true;
        return;
      case 'text-delta':
        // Nested agents' words are their own answers to sub-questions, not the reply.
        if (!nested) this.delta('text', event.delta);
        return;
      case 'thinking-delta':
        if (!nested) this.delta('reasoning', event.delta);
        return;
      case 'model-output':
        if (!nested) this.turnEnded = true;
        return;
      case 'tool-call': {
        const id = toolCallIdOf(event);
        this.toolCalls.add(id);
        // Dynamic: the tools run on the server and the client declares none of them.
        w.write({
          type: 'tool-input-available',
          toolCallId: id,
          toolName: event.toolName,
          input: event.input ?? {},
          dynamic: true,
          ...(nested ? { title: `${event.path!.at(-1)}: ${event.toolName}` } : {}),
        });
        return;
      }
      case 'tool-result': {
        const id = toolCallIdOf(event);
        // The client would reject an output for a call it never saw.
        if (!this.toolCalls.has(id)) return;
        if (event.ok)
          w.write({
            type: 'tool-output-available',
            toolCallId: id,
            output: { summary: event.summary, evidenceIds: event.evidenceIds, ms: event.ms },
            dynamic: true,
          });
        else w.write({ type: 'tool-output-error', toolCallId: id, errorText: event.summary, dynamic: true });
        return;
      }
      case 'citation':
        if (!nested) await this.source(event.citation);
        return;
      case 'plan':
        w.write({ type: 'data-plan', id: 'plan', data: { brief: event.brief, items: event.items } });
        return;
      case 'subagent-start':
        this.subagents.set(event.id, event.question);
        w.write({ type: 'data-subagent', id: event.id, data: { id: event.id, question: event.question, status: 'running' } });
        return;
      case 'subagent-finish':
        w.write({
          type: 'data-subagent',
          id: event.id,
          data: {
            id: event.id,
            question: this.subagents.get(event.id) ?? '',
            status: event.error ? 'failed' : 'finished',
            finishReason: event.finishReason,
            citations: event.citations,
            ms: event.ms,
            ...(event.error ? { error: event.error } : {}),
          },
        });
        return;
      case 'critique':
        w.write({
          type: 'data-critique',
          id: `critique-${++this.critiques}`,
          data: {
            checks: event.checks,
            openQuestions: event.openQuestions,
            ...(event.findings ? { findings: event.findings } : {}),
            ...(event.final ? { final: true, warnings: event.warnings ?? [] } : {}),
            ...(event.model ? { model: event.model } : {}),
          },
        });
        return;
      case 'approval-required':
        w.write({ type: 'data-approval', id: 'approval', data: { runId: event.runId, reason: event.reason } });
        return;
      default:
        return;
    }
  }

  private delta(kind: 'text' | 'reasoning', delta: string): void {
    if (!delta) return;
    if (this.turnEnded) {
      this.closeParts();
      this.turnEnded = false;
    }
    let segment = this[kind];
    if (!segment) {
      segment = this[kind] = { id: `${kind}-${++this.parts}`, text: '' };
      this.writer.write({ type: `${kind}-start`, id: segment.id });
    }
    segment.text += delta;
    this.writer.write({ type: `${kind}-delta`, id: segment.id, delta });
  }

  private closeParts(): void {
    for (const kind of ['text', 'reasoning'] as const) {
      const segment = this[kind];
      if (segment) this.writer.write({ type: `${kind}-end`, id: segment.id });
      this[kind] = undefined;
    }
  }

  /** Ends the text with the run's answer exactly (see reconcileAnswer), and closes the step. */
  finishText(answer: string): void {
    const fix = reconcileAnswer(this.text?.text, answer);
    if (fix && 'append' in fix) this.delta('text', fix.append);
    else if (fix?.replace) {
      this.closeParts();
      this.turnEnded = false;
      this.delta('text', fix.replace);
    }
    this.closeParts();
    if (this.stepOpen) this.writer.write({ type: 'finish-step' });
    this.stepOpen = false;
  }

  /** A cited chunk as a source-document part; its chunk and place are in the provider metadata. */
  async source(citation: Citation): Promise<void> {
    if (this.sources.has(citation.id)) return;
    this.sources.add(citation.id);
    let mediaType = this.mediaTypes.get(citation.documentId);
    if (!mediaType) this.mediaTypes.set(citation.documentId, (mediaType = this.mediaTypeOf(citation.documentId).catch(() => 'text/plain')));
    const dossierMeta = {
      chunkId: citation.chunkId,
      documentId: citation.documentId,
      source: citation.source,
      text: citation.text,
      headingPath: citation.headingPath,
      charStart: citation.charStart,
      charEnd: citation.charEnd,
      ...(citation.page !== undefined ? { page: citation.page } : {}),
    };
    this.writer.write({
      type: 'source-document',
      sourceId: citation.id,
      mediaType: await mediaType,
      title: citation.title,
      filename: citation.source,
      providerMetadata: { dossier: dossierMeta },
    });
  }
}

/** Nested agents number their calls on their own: their ids are prefixed with the agent's path. */
function toolCallIdOf(event: { toolCallId: string; path?: string[] }): string {
  return event.path ? `${event.path.join('/')}/${event.toolCallId}` : event.toolCallId;
}

const errors = {
  400: json(ErrorSchema, 'Bad input'),
  401: json(ErrorSchema, 'No valid API key'),
  404: json(ErrorSchema, 'Not found (or not yours)'),
};

/** POST /v1/chat: the AI SDK UI message stream, for `useChat` with `DefaultChatTransport({ api: '/v1/chat' })`. */
export function registerChat(app: OpenAPIHono<Env>): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/chat',
      summary:
        "Chat (AI SDK UI message stream protocol, v1): useChat's request; the answer, reasoning, tool calls, cited sources and data-plan/subagent/critique/run parts",
      request: { body: { content: { 'application/json': { schema: ChatBody } } } },
      responses: {
        200: {
          description: 'UI message chunks as Server-Sent Events (header x-vercel-ai-ui-message-stream: v1)',
          content: { 'text/event-stream': { schema: z.string() } },
        },
        ...errors,
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const mode = body.mode ?? 'rag';
      const messages = body.messages.map((m) => ({ role: m.role, text: textOf(m) }));
      // Everything that can be refused is refused here, as a plain HTTP error, before the stream starts.
      const started = await startChatRun(
        depsOf(c),
        principalOf(c),
        {
          messages,
          mode,
          model: body.model,
          collections: body.collections,
          conversationId: body.conversationId,
          maxSteps: body.maxSteps,
          critiqueModel: body.critiqueModel,
        },
        (text, what) => checkLength(c, text, what),
      );
      return chatStream(c, started, mode, body.collections);
    },
  );
}
