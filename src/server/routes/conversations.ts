import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AskResult } from '../../ask/ask.ts';
import { entitiesIn } from '../../offline-model/index.ts';
import { DossierError } from '../../errors/index.ts';
import { depsOf, principalOf, type AppContext, type Env } from '../app.ts';
import type { RunRequest } from '../runs.ts';
import type { MessageRecord } from '../state/index.ts';
import { ErrorSchema, json } from './schemas.ts';

const PERSON_PRONOUN = /\b(?:he|she|him|his|her|hers)\b/i;
const THING_PRONOUN = /\b(?:it|its|they|them|their|theirs)\b/i;
const CITATION = /\s*\[(?:unresolved: )?E\d+(?:\s*[,;]\s*E\d+)*\]/g;

/**
 * A follow-up as a standalone question, without a model: "it", "its", "they", "their" become the
 * entity the last question was about; "he", "she", "his", "her" the person the last answer named
 * (else that entity). "Who founded Halvorsen Instruments?" → "When was it founded?" → "When was
 * Halvorsen Instruments founded?". A question with no such pronoun is already standalone.
 */
export function standaloneQuestion(question: string, history: readonly MessageRecord[]): string {
  const lastUser = [...history].reverse().find((m) => m.role === 'user');
  if (!lastUser || !(PERSON_PRONOUN.test(question) || THING_PRONOUN.test(question))) return question;
  const lastAnswer = [...history].reverse().find((m) => m.role === 'assistant');
  const topic = entitiesIn(lastUser.content)[0];
  const person = lastAnswer ? entitiesIn((lastAnswer.content.split('\n')[0] ?? '').replace(CITATION, '')).find((name) => name.includes(' ')) : undefined;
  let out = question;
  const replace = (pattern: RegExp, name: string | undefined) => {
    if (!name) return;
    out = out.replace(new RegExp(pattern.source, 'i'), (word) => (/^(?:its|their|theirs|his|her|hers)$/i.test(word) ? `${name}'s` : name));
  };
  replace(THING_PRONOUN, topic);
  replace(PERSON_PRONOUN, person ?? topic);
  return out;
}

/**
 * Starts a run, in a conversation when one is named (the caller's own; a follow-up is rewritten
 * into a standalone question first and the earlier turns are kept with it), and records the
 * question and, when it finishes, the answer as messages. `parentId` branches from an earlier message.
 */
export async function startConversationRun(c: AppContext, request: RunRequest & { parentId?: string }) {
  const deps = depsOf(c);
  const principal = principalOf(c);
  let question = request.question;
  let parentId = request.parentId;
  if (request.conversationId) {
    const conversation = await deps.state.conversation(request.conversationId);
    if (!conversation || conversation.userId !== principal.user.id) throw new DossierError('not-found', 'no such conversation');
    const all = await deps.state.messages(conversation.id);
    // The branch the question continues: up to its parent, or the whole thread.
    const history = parentId ? branchTo(all, parentId) : all;
    if (parentId && history.length === 0) throw new DossierError('not-found', 'no such parent message in this conversation');
    parentId ??= all.at(-1)?.id;
    question = standaloneQuestion(request.question, history);
  }
  const conversationId = request.conversationId;
  let asked: MessageRecord | undefined;
  // The question is recorded before the run starts and the answer before it counts as done, so whoever awaits `done` reads both.
  const hooks = conversationId
    ? {
        beforeRun: async (runId: string) => void (asked = await deps.state.addMessage({ conversationId, ...(parentId ? { parentId } : {}), role: 'user', content: request.question, runId })),
        afterRun: async (result: AskResult) => void (await deps.state.addMessage({ conversationId, parentId: asked!.id, role: 'assistant', content: result.answer, runId: asked!.runId, citations: result.citations })),
      }
    : {};
  const { runId, done } = await deps.runs.start(principal, request, { question }, hooks);
  return { runId, done, question };
}

/** The messages from the root to `id`, following parents. */
function branchTo(messages: readonly MessageRecord[], id: string): MessageRecord[] {
  const byId = new Map(messages.map((m) => [m.id, m]));
  const path: MessageRecord[] = [];
  for (let at = byId.get(id); at; at = at.parentId ? byId.get(at.parentId) : undefined) path.unshift(at);
  return path;
}

const Message = z.object({ id: z.string(), parentId: z.string().optional(), role: z.enum(['user', 'assistant']), content: z.string(), runId: z.string().optional(), createdAt: z.string(), citations: z.array(z.unknown()).optional() }).openapi('Message');
const Conversation = z.object({ id: z.string(), title: z.string(), createdAt: z.string() }).openapi('Conversation');
const errors = { 400: json(ErrorSchema, 'Bad input'), 401: json(ErrorSchema, 'No valid API key'), 404: json(ErrorSchema, 'Not found (or not yours)') };

async function own(c: AppContext, id: string) {
  const conversation = await depsOf(c).state.conversation(id);
  if (!conversation || conversation.userId !== principalOf(c).user.id) throw new DossierError('not-found', 'no such conversation');
  return conversation;
}

/** Conversations: create, list, get, messages, delete, export. */
export function registerConversations(app: OpenAPIHono<Env>): void {
  app.openapi(
    createRoute({ method: 'post', path: '/v1/conversations', summary: 'Start a conversation', request: { body: { content: { 'application/json': { schema: z.object({ title: z.string().max(200).optional() }) } } } }, responses: { 201: json(Conversation, 'The conversation'), ...errors } }),
    async (c) => {
      const { id, title, createdAt } = await depsOf(c).state.createConversation(principalOf(c).user.id, c.req.valid('json').title ?? 'Conversation');
      return c.json({ id, title, createdAt }, 201);
    },
  );
  app.openapi(createRoute({ method: 'get', path: '/v1/conversations', summary: "The caller's conversations", responses: { 200: json(z.object({ conversations: z.array(Conversation) }), 'Conversations'), ...errors } }), async (c) =>
    c.json({ conversations: (await depsOf(c).state.conversations(principalOf(c).user.id)).map(({ id, title, createdAt }) => ({ id, title, createdAt })) }, 200),
  );
  app.openapi(
    createRoute({ method: 'get', path: '/v1/conversations/{id}', summary: 'A conversation with its messages', request: { params: z.object({ id: z.string() }) }, responses: { 200: json(Conversation.extend({ messages: z.array(Message) }), 'The conversation'), ...errors } }),
    async (c) => {
      const { id, title, createdAt } = await own(c, c.req.valid('param').id);
      return c.json({ id, title, createdAt, messages: (await depsOf(c).state.messages(id)).map(({ conversationId: _c, ...m }) => m) }, 200);
    },
  );
  app.openapi(
    createRoute({ method: 'get', path: '/v1/conversations/{id}/messages', summary: 'Messages, oldest first', request: { params: z.object({ id: z.string() }) }, responses: { 200: json(z.object({ messages: z.array(Message) }), 'Messages'), ...errors } }),
    async (c) => {
      const { id } = await own(c, c.req.valid('param').id);
      return c.json({ messages: (await depsOf(c).state.messages(id)).map(({ conversationId: _c, ...m }) => m) }, 200);
    },
  );
  app.openapi(
    createRoute({ method: 'get', path: '/v1/conversations/{id}/export', summary: 'The conversation as Markdown', request: { params: z.object({ id: z.string() }) }, responses: { 200: { description: 'Markdown', content: { 'text/markdown': { schema: z.string() } } }, ...errors } }),
    async (c) => {
      const conversation = await own(c, c.req.valid('param').id);
      const lines = [`# ${conversation.title}`, ''];
      for (const m of await depsOf(c).state.messages(conversation.id)) lines.push(`**${m.role === 'user' ? 'Question' : 'Answer'}** (${m.createdAt})`, '', m.content, '');
      return c.body(lines.join('\n'), 200, { 'content-type': 'text/markdown; charset=utf-8' });
    },
  );
  app.openapi(
    createRoute({ method: 'delete', path: '/v1/conversations/{id}', summary: 'Delete a conversation and its messages', request: { params: z.object({ id: z.string() }) }, responses: { 200: json(z.object({ deleted: z.literal(true) }), 'Deleted'), ...errors } }),
    async (c) => {
      const { id } = await own(c, c.req.valid('param').id);
      await depsOf(c).state.deleteConversation(id);
      return c.json({ deleted: true as const }, 200);
    },
  );
}
