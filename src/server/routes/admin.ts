import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { assertCollectionName } from '../../dossier.ts';
import { DossierError } from '../../errors/index.ts';
import { depsOf, principalOf, type AppContext, type Env } from '../app.ts';
import { ROLES, type Role } from '../state/index.ts';
import { ErrorSchema, json } from './schemas.ts';

const errors = {
  400: json(ErrorSchema, 'Bad input'),
  401: json(ErrorSchema, 'No valid API key'),
  403: json(ErrorSchema, 'Not allowed'),
  404: json(ErrorSchema, 'Not found'),
};

function assertAdmin(c: AppContext): void {
  if (!principalOf(c).all) throw new DossierError('forbidden', 'this needs an admin key');
}

/** Users and keys (admins), collection members (owners), and who the caller is. */
export function registerAdmin(app: OpenAPIHono<Env>): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/me',
      summary: 'The caller: user, admin, collections and roles',
      responses: {
        200: json(
          z.object({
            user: z.object({ id: z.string(), name: z.string(), admin: z.boolean() }),
            collections: z.array(z.object({ collection: z.string(), role: z.string() })),
          }),
          'Who you are',
        ),
        ...errors,
      },
    }),
    async (c) => {
      const { user } = principalOf(c);
      return c.json(
        { user: { id: user.id, name: user.name, admin: user.admin }, collections: await depsOf(c).state.memberships(user.id) },
        200,
      );
    },
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/users',
      summary: 'Create a user (admin)',
      request: { body: { content: { 'application/json': { schema: z.object({ name: z.string(), admin: z.boolean().optional() }) } } } },
      responses: { 201: json(z.object({ userId: z.string(), apiKey: z.string() }), 'The user and a first key (shown once)'), ...errors },
    }),
    async (c) => {
      assertAdmin(c);
      const body = c.req.valid('json');
      const { state } = depsOf(c);
      const user = await state.createUser(body.name, { admin: body.admin });
      return c.json({ userId: user.id, apiKey: (await state.createKey(user.id)).apiKey }, 201);
    },
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/keys',
      summary: 'A new API key for a user (admin), or for yourself',
      request: { body: { content: { 'application/json': { schema: z.object({ user: z.string().optional() }) } } } },
      responses: { 201: json(z.object({ apiKey: z.string() }), 'The key (shown once)'), ...errors },
    }),
    async (c) => {
      const { state } = depsOf(c);
      const me = principalOf(c).user;
      const name = c.req.valid('json').user;
      if (name && name !== me.name) assertAdmin(c);
      const user = name ? await state.userByName(name) : me;
      if (!user) throw new DossierError('not-found', `no user "${name}"`);
      return c.json({ apiKey: (await state.createKey(user.id)).apiKey }, 201);
    },
  );
  app.openapi(
    createRoute({
      method: 'put',
      path: '/v1/collections/{collection}/members/{user}',
      summary: 'Grant a user a role on a collection (owner or admin)',
      request: {
        params: z.object({ collection: z.string(), user: z.string() }),
        body: { content: { 'application/json': { schema: z.object({ role: z.enum(ROLES as unknown as [Role, ...Role[]]) }) } } },
      },
      responses: { 200: json(z.object({ collection: z.string(), user: z.string(), role: z.string() }), 'Granted'), ...errors },
    }),
    async (c) => {
      const { collection, user: name } = c.req.valid('param');
      assertCollectionName(collection);
      const principal = principalOf(c);
      if (!principal.canManage(collection))
        throw new DossierError(
          principal.canRead(collection) ? 'forbidden' : 'not-found',
          principal.canRead(collection) ? `only an owner of "${collection}" can grant roles` : `no collection "${collection}"`,
        );
      const { state } = depsOf(c);
      const user = await state.userByName(name);
      if (!user) throw new DossierError('not-found', `no user "${name}"`);
      const { role } = c.req.valid('json');
      await state.grant(collection, user.id, role);
      return c.json({ collection, user: name, role }, 200);
    },
  );
}
