import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { assertCollectionName } from '../../dossier.ts';
import { DossierError } from '../../errors/index.ts';
import { entityPassages } from '../../graph/index.ts';
import { resolveModel } from '../../providers/index.ts';
import { checkLength, depsOf, principalOf, type AppContext, type Env } from '../app.ts';
import { startJob } from '../jobs.ts';
import { ErrorSchema, json } from './schemas.ts';

const GraphEntity = z
  .object({
    id: z.string(),
    collection: z.string(),
    name: z.string(),
    type: z.string(),
    description: z.string(),
    aliases: z.array(z.string()),
    chunkIds: z.array(z.number()),
    mentions: z.number(),
  })
  .openapi('GraphEntity');
const GraphRelationship = z
  .object({
    subject: z.string(),
    subjectId: z.string(),
    predicate: z.string(),
    object: z.string(),
    objectId: z.string(),
    weight: z.number(),
    chunkIds: z.array(z.number()),
  })
  .openapi('GraphRelationship');
const GraphPassage = z
  .object({
    chunkId: z.number(),
    documentId: z.number(),
    collection: z.string(),
    title: z.string(),
    source: z.string(),
    text: z.string(),
    headingPath: z.array(z.string()),
  })
  .openapi('GraphPassage');
const GraphCommunity = z
  .object({
    id: z.string(),
    collection: z.string(),
    level: z.number(),
    parentId: z.string().optional(),
    title: z.string(),
    summary: z.string(),
    entityIds: z.array(z.string()),
    chunkIds: z.array(z.number()),
    size: z.number(),
    summarizedBy: z.string(),
    stale: z.boolean(),
  })
  .openapi('GraphCommunity');
const GraphBuildJob = z
  .object({
    id: z.string(),
    collection: z.string().openapi({ description: 'The collections of the build, comma-separated' }),
    status: z.enum(['queued', 'running', 'finished', 'failed']),
    progress: z.object({ done: z.number(), total: z.number() }).optional(),
    report: z.unknown().optional(),
    error: z.string().optional(),
  })
  .openapi('GraphBuildJob');
const errors = {
  400: json(ErrorSchema, 'Bad input'),
  401: json(ErrorSchema, 'No valid API key'),
  404: json(ErrorSchema, 'Not found (or not yours)'),
};
const collectionName = z.string().min(1).max(64);

/** The collections a build may cover: the named ones, each writable, or every one the caller may write. */
async function buildCollections(c: AppContext, named: readonly string[] | undefined): Promise<string[]> {
  const principal = principalOf(c);
  const { dossier } = depsOf(c);
  // Only collections the caller may read are listed, so a refusal never names anyone else's.
  const readable = (await dossier.collections({ scope: principal.readScope() })).map((collection) => collection.name);
  if (named?.length) {
    const names = [...new Set(named)];
    for (const name of names) {
      assertCollectionName(name);
      principal.assertWrite(name);
      if (!readable.includes(name)) throw new DossierError('not-found', `no collection "${name}" (it has no documents yet)`);
    }
    return names;
  }
  const writable = readable.filter((name) => principal.canWrite(name));
  if (writable.length === 0)
    throw new DossierError('forbidden', 'no collection you may write has documents; building a graph needs the writer or owner role');
  return writable;
}

/**
 * The knowledge graph (issue 24): build it as a job, list and search its entities, show one with its
 * relationships and the passages that state them. Reads are scoped like document reads: a caller
 * sees only the graphs of collections they may read, and an entity of any other is "not found".
 */
export function registerGraph(app: OpenAPIHono<Env>): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/graph/build',
      summary: "Build (or bring up to date) the collections' knowledge graphs as a background job; poll GET /v1/jobs/{jobId}",
      request: {
        body: {
          content: {
            'application/json': {
              schema: z.object({
                collections: z.array(collectionName).max(100).optional(),
                rebuild: z.boolean().optional(),
                model: z.string().min(1).max(200).optional(),
              }),
            },
          },
        },
      },
      responses: {
        202: json(z.object({ job: GraphBuildJob }), 'The build job, running'),
        ...errors,
        403: json(ErrorSchema, 'Reader of a collection'),
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const deps = depsOf(c);
      const collections = await buildCollections(c, body.collections);
      // A model that cannot be used (unknown provider, no key) is a 400 now, not a failed job later.
      if (body.model) await resolveModel(body.model, { env: deps.dossier.env, language: deps.dossier.language });
      const collection = collections.join(',');
      const job = await startJob(deps, principalOf(c).user.id, collection, (onProgress) =>
        deps.dossier.graph.build({
          collections,
          rebuild: body.rebuild,
          model: body.model,
          onProgress: (done, total) => onProgress({ done, total }),
        }),
      );
      return c.json({ job: { id: job.id, collection, status: 'running' as const } }, 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/graph/entities',
      summary: 'Entities of the knowledge graphs the caller may read, most mentioned first; `query` finds them by name',
      request: {
        query: z.object({
          query: z.string().min(1).optional(),
          collection: collectionName.optional(),
          limit: z.coerce.number().int().min(1).max(1000).optional(),
          offset: z.coerce.number().int().min(0).optional(),
        }),
      },
      responses: { 200: json(z.object({ entities: z.array(GraphEntity) }), 'Entities'), ...errors },
    }),
    async (c) => {
      const query = c.req.valid('query');
      if (query.query !== undefined) checkLength(c, query.query, 'query');
      const entities = await depsOf(c).dossier.graph.entities({
        scope: principalOf(c).readScope(query.collection ? [query.collection] : undefined),
        query: query.query,
        limit: query.limit ?? 50,
        offset: query.offset,
      });
      return c.json({ entities }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/graph/communities',
      summary:
        'Communities of the knowledge graphs the caller may read: groups of closely related entities, each with a summary read from its chunks',
      request: {
        query: z.object({
          collection: collectionName.optional(),
          level: z.coerce.number().int().min(0).max(100).optional(),
          limit: z.coerce.number().int().min(1).max(1000).optional(),
        }),
      },
      responses: { 200: json(z.object({ communities: z.array(GraphCommunity) }), 'Communities'), ...errors },
    }),
    async (c) => {
      const query = c.req.valid('query');
      const communities = await depsOf(c).dossier.graph.communities({
        scope: principalOf(c).readScope(query.collection ? [query.collection] : undefined),
        level: query.level,
        limit: query.limit ?? 100,
      });
      return c.json({ communities }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/graph/entities/{id}',
      summary: 'One entity (by id, or by name) with its relationships, strongest first, and the passages that state them',
      request: {
        params: z.object({
          id: z
            .string()
            .min(1)
            .max(500)
            .openapi({ param: { name: 'id', in: 'path' } }),
        }),
        query: z.object({
          collection: collectionName.optional(),
          limit: z.coerce.number().int().min(1).max(1000).optional(),
        }),
      },
      responses: {
        200: json(
          z.object({ entity: GraphEntity, relationships: z.array(GraphRelationship), passages: z.array(GraphPassage) }),
          'The entity',
        ),
        ...errors,
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const query = c.req.valid('query');
      checkLength(c, id, 'entity');
      const { dossier } = depsOf(c);
      const scope = principalOf(c).readScope(query.collection ? [query.collection] : undefined);
      const { entity, relationships } = await dossier.graph.entity(id, { scope, limit: query.limit });
      const passages = await entityPassages(dossier.store, { entity, relationships });
      return c.json({ entity, relationships, passages }, 200);
    },
  );
}
