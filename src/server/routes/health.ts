import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { depsOf, type Env } from '../app.ts';
import { json } from './schemas.ts';

/** Liveness (`/health`) and readiness (`/ready`: the index answers a read). No key needed. */
export function registerHealth(app: OpenAPIHono<Env>, version: string): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/health',
      summary: 'The process is up',
      responses: { 200: json(z.object({ ok: z.literal(true), version: z.string() }), 'Up') },
    }),
    (c) => c.json({ ok: true as const, version }, 200),
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/ready',
      summary: 'The index answers',
      responses: {
        200: json(z.object({ ready: z.boolean(), documents: z.number() }), 'Ready'),
        503: json(z.object({ ready: z.boolean(), error: z.string() }), 'Not ready'),
      },
    }),
    async (c) => {
      try {
        const deps = depsOf(c);
        // Both the index and the server's own tables must answer (one database on PostgreSQL, two pools).
        await deps.state.ping();
        const stats = await deps.dossier.stats({ scope: { collections: '*' } });
        return c.json({ ready: true, documents: stats.documents }, 200);
      } catch (error) {
        c.header('Retry-After', '2');
        return c.json({ ready: false, error: (error as Error).message }, 503);
      }
    },
  );
}
