import { mkdirSync, readdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { assertCollectionName } from '../../dossier.ts';
import { DossierError, oneLine } from '../../errors/index.ts';
import { SEARCH_MODES } from '../../retrieve/search.ts';
import { checkLength, depsOf, principalOf, type AppContext, type Env } from '../app.ts';
import { startJob } from '../jobs.ts';
import type { Scope } from '../../store/types.ts';
import { ErrorSchema, json } from './schemas.ts';
import { streamSSE } from 'hono/streaming';

/** How often a job's progress stream reads the job's row. */
const JOB_POLL_MS = 200;

const DocumentSummary = z
  .object({
    id: z.number(),
    collection: z.string(),
    title: z.string(),
    source: z.string(),
    mediaType: z.string(),
    chunks: z.number(),
    updatedAt: z.string(),
    metadata: z.record(z.string(), z.unknown()),
  })
  .openapi('DocumentSummary');
const Chunk = z
  .object({
    id: z.number(),
    documentId: z.number(),
    ordinal: z.number(),
    text: z.string(),
    headingPath: z.array(z.string()),
    page: z.number().optional(),
    charStart: z.number(),
    charEnd: z.number(),
  })
  .passthrough()
  .openapi('Chunk');
const Job = z
  .object({
    id: z.string(),
    collection: z.string(),
    status: z.enum(['queued', 'running', 'finished', 'failed']),
    progress: z.unknown().optional(),
    report: z.unknown().optional(),
    error: z.string().optional(),
    attempts: z.number().optional().openapi({ description: 'Queued jobs: claims so far (a retry after a worker died counts)' }),
  })
  .openapi('IngestJob');
const Id = z.object({
  id: z.coerce
    .number()
    .int()
    .positive()
    .openapi({ param: { name: 'id', in: 'path' } }),
});
const errors = {
  400: json(ErrorSchema, 'Bad input'),
  401: json(ErrorSchema, 'No valid API key'),
  404: json(ErrorSchema, 'Not found (or not yours)'),
};

const filterParam = (text: string | undefined) => {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new DossierError('bad-input', `filter is not JSON: ${text.slice(0, 80)}`);
  }
};

/**
 * The scope to change a document in: its collection, when the caller may write there. A document
 * the caller cannot read is not found; one they can only read is forbidden.
 */
async function writeScopeOf(c: AppContext, id: number): Promise<Scope> {
  const principal = principalOf(c);
  const current = await depsOf(c).dossier.getDocument(id, { scope: principal.readScope() });
  principal.assertWrite(current.collection);
  return { collections: [current.collection] };
}

/** Documents (upload as a background job — in-process on SQLite, queued on PostgreSQL —, list, get, chunks, delete, metadata patch), search and collections. */
export function registerDocuments(app: OpenAPIHono<Env>): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/documents',
      summary: 'Upload files into a collection; ingestion runs as a background job',
      request: {
        body: {
          content: {
            'multipart/form-data': {
              schema: z.object({
                file: z.any().openapi({ type: 'string', format: 'binary' }),
                collection: z.string().optional(),
                metadata: z.string().optional().openapi({ description: 'JSON object' }),
              }),
            },
          },
        },
      },
      responses: {
        202: json(z.object({ job: Job }), 'The ingestion job: running, or queued on a PostgreSQL-backed server'),
        ...errors,
        403: json(ErrorSchema, 'Reader of the collection'),
        413: json(ErrorSchema, 'Too large'),
      },
    }),
    async (c) => {
      const deps = depsOf(c);
      const principal = principalOf(c);
      const form = await c.req.parseBody({ all: true });
      const collection = typeof form.collection === 'string' && form.collection ? form.collection : 'default';
      assertCollectionName(collection);
      principal.assertWrite(collection);
      let metadata: Record<string, unknown> | undefined;
      if (typeof form.metadata === 'string' && form.metadata.trim()) {
        try {
          metadata = JSON.parse(form.metadata) as Record<string, unknown>;
        } catch {
          throw new DossierError('bad-input', 'metadata is not a JSON object');
        }
        if (!metadata || typeof metadata !== 'object' || Array.isArray(metadata))
          throw new DossierError('bad-input', 'metadata must be a JSON object');
      }
      const files = ([] as unknown[]).concat(form.file ?? []).filter((f): f is File => f instanceof File);
      if (files.length === 0) throw new DossierError('bad-input', 'no file: send multipart/form-data with a "file" field');
      // Uploads are kept: the index cites them by their stored path.
      const folder = join(deps.uploadsDir, randomUUID());
      mkdirSync(folder, { recursive: true });
      const paths: string[] = [];
      for (const file of files) {
        const path = join(folder, basename(file.name || 'upload').replace(/[^\w.\- ]+/g, '_') || 'upload');
        writeFileSync(path, Buffer.from(await file.arrayBuffer()));
        paths.push(path);
      }
      // PostgreSQL: the job goes into the durable queue, and whichever worker (this server's or a
      // `dossier worker` elsewhere on the shared file system) claims it ingests it.
      const queue = deps.state.queue();
      if (queue) {
        const queued = await queue.enqueueJob(principal.user.id, collection, { paths, ...(metadata ? { metadata } : {}) });
        return c.json({ job: { id: queued.id, collection, status: 'queued' as const } }, 202);
      }
      // Off the request path: even one file is parsed, chunked and embedded in a worker thread, so
      // searches keep answering; the main thread only commits, document by document.
      const job = await startJob(deps, principal.user.id, collection, (onProgress) =>
        deps.dossier.ingest(paths, { collection, metadata, workers: 1, onProgress }),
      );
      return c.json({ job: { id: job.id, collection, status: 'running' as const } }, 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/jobs/{jobId}',
      summary: "A job (an upload's ingestion, or a graph build): progress, then its report",
      request: { params: z.object({ jobId: z.string() }) },
      responses: { 200: json(z.object({ job: Job }), 'The job'), ...errors },
    }),
    async (c) => {
      const job = await depsOf(c).state.job(c.req.valid('param').jobId);
      if (!job || job.userId !== principalOf(c).user.id) throw new DossierError('not-found', 'no such job');
      const { userId: _user, createdAt: _c, finishedAt: _f, ...shown } = job;
      return c.json({ job: shown }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/jobs/{jobId}/events',
      summary:
        "A job's progress (an upload's ingestion, or a graph build) as Server-Sent Events: `progress` while it runs, then `job-finish` with the report",
      request: { params: z.object({ jobId: z.string() }) },
      responses: { 200: { description: 'Event stream', content: { 'text/event-stream': { schema: z.string() } } }, ...errors },
    }),
    async (c) => {
      const { state } = depsOf(c);
      const userId = principalOf(c).user.id;
      const first = await state.job(c.req.valid('param').jobId);
      if (!first || first.userId !== userId) throw new DossierError('not-found', 'no such job');
      // The job's row is the one source of truth (a worker or another node may be running it): read it until it ends.
      return streamSSE(c, async (stream) => {
        let sent = '';
        let id = 0;
        for (;;) {
          const job = await state.job(first.id);
          if (!job || stream.aborted) return;
          const { userId: _user, createdAt: _c, finishedAt: _f, ...shown } = job;
          const data = JSON.stringify(shown);
          if (job.status === 'finished' || job.status === 'failed') {
            await stream.writeSSE({ event: 'job-finish', id: String(++id), data });
            return;
          }
          if (data !== sent) await stream.writeSSE({ event: 'progress', id: String(++id), data });
          sent = data;
          await stream.sleep(JOB_POLL_MS);
        }
      });
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/documents',
      summary: 'List documents the caller may read',
      request: {
        query: z.object({
          collection: z.string().optional(),
          filter: z.string().optional().openapi({ description: 'Mongo-style filter, JSON' }),
          limit: z.coerce.number().int().min(1).max(1000).optional(),
          offset: z.coerce.number().int().min(0).optional(),
        }),
      },
      responses: { 200: json(z.object({ documents: z.array(DocumentSummary) }), 'Documents'), ...errors },
    }),
    async (c) => {
      const query = c.req.valid('query');
      const scope = principalOf(c).readScope(query.collection ? [query.collection] : undefined);
      const documents = await depsOf(c).dossier.listDocuments({
        scope,
        filter: filterParam(query.filter),
        limit: query.limit ?? 100,
        offset: query.offset,
      });
      return c.json({ documents }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/documents/{id}',
      summary: 'One document',
      request: { params: Id },
      responses: { 200: json(z.object({ document: z.record(z.string(), z.unknown()) }), 'The document'), ...errors },
    }),
    async (c) => {
      const document = await depsOf(c).dossier.getDocument(c.req.valid('param').id, { scope: principalOf(c).readScope() });
      return c.json({ document: document as unknown as Record<string, unknown> }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/documents/{id}/chunks',
      summary: "A document's chunks",
      request: { params: Id },
      responses: { 200: json(z.object({ chunks: z.array(Chunk) }), 'Chunks in order'), ...errors },
    }),
    async (c) => {
      const chunks = await depsOf(c).dossier.getChunks(c.req.valid('param').id, { scope: principalOf(c).readScope() });
      return c.json({ chunks: chunks as unknown as z.infer<typeof Chunk>[] }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/v1/documents/{id}',
      summary: "Merge into a document's metadata (null removes a key)",
      request: {
        params: Id,
        body: { content: { 'application/json': { schema: z.object({ metadata: z.record(z.string(), z.unknown()) }) } } },
      },
      responses: {
        200: json(z.object({ document: z.record(z.string(), z.unknown()) }), 'The document'),
        ...errors,
        403: json(ErrorSchema, 'Reader of the collection'),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const scope = await writeScopeOf(c, id);
      const document = await depsOf(c).dossier.updateMetadata(id, c.req.valid('json').metadata, { scope });
      return c.json({ document: document as unknown as Record<string, unknown> }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/v1/documents/{id}',
      summary: 'Delete a document with its chunks and vectors',
      request: { params: Id },
      responses: {
        200: json(z.object({ deleted: z.literal(true) }), 'Deleted'),
        ...errors,
        403: json(ErrorSchema, 'Reader of the collection'),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const deps = depsOf(c);
      const scope = await writeScopeOf(c, id);
      const { source } = await deps.dossier.getDocument(id, { scope });
      await deps.dossier.deleteDocument(id, { scope });
      removeUpload(deps.uploadsDir, source);
      return c.json({ deleted: true as const }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/search',
      summary: 'Search the collections the caller may read',
      request: {
        body: {
          content: {
            'application/json': {
              schema: z.object({
                query: z.string().min(1),
                mode: z.enum(SEARCH_MODES as unknown as [string, ...string[]]).optional(),
                k: z.number().int().min(1).max(100).optional(),
                filter: z.record(z.string(), z.unknown()).optional(),
                collections: z.array(z.string()).optional(),
              }),
            },
          },
        },
      },
      responses: {
        200: json(z.object({ hits: z.array(z.record(z.string(), z.unknown())), ms: z.number() }), 'Hits, best first'),
        ...errors,
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      checkLength(c, body.query, 'query');
      const started = performance.now();
      const hits = await depsOf(c).dossier.search({
        query: body.query,
        mode: (body.mode ?? 'hybrid') as 'hybrid',
        k: body.k ?? 10,
        filter: body.filter,
        scope: principalOf(c).readScope(body.collections),
      });
      return c.json({ hits: hits as unknown as Record<string, unknown>[], ms: Math.round((performance.now() - started) * 100) / 100 }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/collections',
      summary: "Collections the caller may read, with document counts and the caller's role",
      responses: {
        200: json(
          z.object({ collections: z.array(z.object({ name: z.string(), documents: z.number(), role: z.string() })) }),
          'Collections',
        ),
        ...errors,
      },
    }),
    async (c) => {
      const principal = principalOf(c);
      const collections = await depsOf(c).dossier.collections({ scope: principal.readScope() });
      return c.json(
        {
          collections: collections.map((col) => ({
            ...col,
            role: principal.canManage(col.name) ? 'owner' : principal.canWrite(col.name) ? 'writer' : 'reader',
          })),
        },
        200,
      );
    },
  );
}

/**
 * A deleted document's uploaded file goes with it (and its upload folder once empty); sources
 * outside the uploads folder (files ingested from disk by the CLI) are never touched.
 */
function removeUpload(uploadsDir: string, source: string): void {
  const root = resolve(uploadsDir);
  const path = resolve(source);
  const inside = relative(root, path);
  // inside the uploads folder, in an upload's own folder (relative() never puts '..' after a name)
  if (!inside || inside.startsWith('..') || isAbsolute(inside) || !inside.includes(sep)) return;
  try {
    rmSync(path, { force: true });
    const folder = dirname(path);
    if (folder !== root && readdirSync(folder).length === 0) rmdirSync(folder);
  } catch (error) {
    process.stderr.write(`dossier serve: could not remove the upload ${path}: ${oneLine(error)}\n`);
  }
}
