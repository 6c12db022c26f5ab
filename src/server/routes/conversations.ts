import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { DossierError } from '../../errors/index.ts';
import { checkStorable, depsOf, principalOf, type AppContext, type Env } from '../app.ts';
import { ErrorSchema, json } from './schemas.ts';

const Message = z
  .object({
    id: z.string(),
    parentId: z.string().optional(),
    role: z.enum(['user', 'assistant']),
    content: z.string(),
    runId: z.string().optional(),
    createdAt: z.string(),
    citations: z.array(z.unknown()).optional(),
  })
  .openapi('Message');
const Conversation = z.object({ id: z.string(), title: z.string(), createdAt: z.string() }).openapi('Conversation');
const errors = {
  400: json(ErrorSchema, 'Bad input'),
  401: json(ErrorSchema, 'No valid API key'),
  404: json(ErrorSchema, 'Not found (or not yours)'),
};

async function own(c: AppContext, id: string) {
  const conversation = await depsOf(c).state.conversation(id);
  if (!conversation || conversation.userId !== principalOf(c).user.id) throw new DossierError('not-found', 'no such conversation');
  return conversation;
}

/** Conversations: create, list, get, messages, delete, export. */
export function registerConversations(app: OpenAPIHono<Env>): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/conversations',
      summary: 'Start a conversation',
      request: { body: { content: { 'application/json': { schema: z.object({ title: z.string().max(200).optional() }) } } } },
      responses: { 201: json(Conversation, 'The conversation'), ...errors },
    }),
    async (c) => {
      const { id, title, createdAt } = await depsOf(c).state.createConversation(
        principalOf(c).user.id,
        checkStorable(c.req.valid('json').title ?? 'Conversation', 'title'),
      );
      return c.json({ id, title, createdAt }, 201);
    },
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/conversations',
      summary: "The caller's conversations",
      responses: { 200: json(z.object({ conversations: z.array(Conversation) }), 'Conversations'), ...errors },
    }),
    async (c) =>
      c.json(
        {
          conversations: (await depsOf(c).state.conversations(principalOf(c).user.id)).map(({ id, title, createdAt }) => ({
            id,
            title,
            createdAt,
          })),
        },
        200,
      ),
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/conversations/{id}',
      summary: 'A conversation with its messages',
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: json(Conversation.extend({ messages: z.array(Message) }), 'The conversation'), ...errors },
    }),
    async (c) => {
      const { id, title, createdAt } = await own(c, c.req.valid('param').id);
      return c.json({ id, title, createdAt, messages: (await depsOf(c).state.messages(id)).map(({ conversationId: _c, ...m }) => m) }, 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/conversations/{id}/messages',
      summary: 'Messages, oldest first',
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: json(z.object({ messages: z.array(Message) }), 'Messages'), ...errors },
    }),
    async (c) => {
      const { id } = await own(c, c.req.valid('param').id);
      return c.json({ messages: (await depsOf(c).state.messages(id)).map(({ conversationId: _c, ...m }) => m) }, 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/conversations/{id}/export',
      summary: 'The conversation as Markdown',
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: { description: 'Markdown', content: { 'text/markdown': { schema: z.string() } } }, ...errors },
    }),
    async (c) => {
      const conversation = await own(c, c.req.valid('param').id);
      const lines = [`# ${conversation.title}`, ''];
      for (const m of await depsOf(c).state.messages(conversation.id))
        lines.push(`**${m.role === 'user' ? 'Question' : 'Answer'}** (${m.createdAt})`, '', m.content, '');
      return c.body(lines.join('\n'), 200, { 'content-type': 'text/markdown; charset=utf-8' });
    },
  );
  app.openapi(
    createRoute({
      method: 'delete',
      path: '/v1/conversations/{id}',
      summary: 'Delete a conversation and its messages',
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: json(z.object({ deleted: z.literal(true) }), 'Deleted'), ...errors },
    }),
    async (c) => {
      const { id } = await own(c, c.req.valid('param').id);
      await depsOf(c).state.deleteConversation(id);
      return c.json({ deleted: true as const }, 200);
    },
  );
}
