import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import type { Dossier } from '../dossier.ts';
import { DossierError } from '../errors/index.ts';
import { createApp, type AuthMode, type ServerOptions } from './app.ts';
import { registerAdmin } from './routes/admin.ts';
import { registerAsk } from './routes/ask.ts';
import { registerConversations } from './routes/conversations.ts';
import { registerDocuments } from './routes/documents.ts';
import { registerGraph } from './routes/graph.ts';
import { registerHealth } from './routes/health.ts';
import { isPostgresUrl, openServerState } from './state/index.ts';
import { VERSION } from '../version.ts';

export { createApp, type AuthMode, type ServerOptions } from './app.ts';
export { openServerState, SqliteServerState, type ServerState } from './state/index.ts';
export { Principal } from './principal.ts';

/** Optional route groups, registered when their module is present (chat, OpenAI-compatible, MCP, web page). */
export type RouteGroup = (app: ReturnType<typeof createApp>['app'], deps: ReturnType<typeof createApp>['deps']) => void | Promise<void>;

/** The whole app: every route group, the OpenAPI document and its reference page. */
export async function buildApp(options: ServerOptions, extra: RouteGroup[] = []) {
  const built = createApp(options);
  const { app } = built;
  registerHealth(app, VERSION);
  registerDocuments(app);
  registerGraph(app);
  registerAsk(app);
  registerConversations(app);
  registerAdmin(app);
  for (const group of extra) await group(app, built.deps);
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Dossier',
      version: VERSION,
      description: 'Answers you can check: ingest, search, ask and research over your documents.',
    },
    security: [{ bearer: [] }],
  });
  app.get('/docs', (c) => c.html(referencePage()));
  return built;
}

/** A readable API reference from /openapi.json, with no external scripts. */
function referencePage(): string {
  return `<!doctype html><meta charset="utf-8"><title>Dossier API</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}code{background:#f3f3f3;padding:0 .25rem}h2{margin-top:2rem}.m{font-weight:700;text-transform:uppercase;display:inline-block;width:4.5rem}</style>
<h1>Dossier API</h1><p>The OpenAPI document is at <a href="/openapi.json"><code>/openapi.json</code></a>. Send <code>Authorization: Bearer &lt;key&gt;</code> unless the server runs on loopback without keys. Errors are <code>{"error":{"code","message"}}</code>.</p><div id="routes">Loading…</div>
<script>fetch('/openapi.json').then(r=>r.json()).then(doc=>{const out=[];for(const [path,ops] of Object.entries(doc.paths)){for(const [method,op] of Object.entries(ops)){out.push('<h2><span class="m">'+method+'</span><code>'+path+'</code></h2><p>'+(op.summary||'')+'</p>'+(op.requestBody?'<p>Body: <code>'+Object.keys(op.requestBody.content).join(', ')+'</code></p>':'')+'<p>Responses: '+Object.keys(op.responses).map(s=>'<code>'+s+'</code>').join(' ')+'</p>')}}document.getElementById('routes').innerHTML=out.join('')})</script>`;
}

export interface StartOptions {
  dossier: Dossier;
  db: string;
  host?: string;
  port?: number;
  auth?: AuthMode;
  ask?: ServerOptions['ask'];
  limits?: ServerOptions['limits'];
  extra?: RouteGroup[];
  /** Where uploads are kept; default `DOSSIER_UPLOADS_DIR`, else beside the index (see sideDir). */
  uploadsDir?: string;
  /** PostgreSQL: queue workers run in this process (default 1, so one node works alone; 0 only enqueues). */
  workers?: number;
}

/**
 * A folder kept beside the index: `<file>.<kind>` for an SQLite file; for a PostgreSQL URL (no file
 * to sit beside) a folder under the OS temp dir named after the server and database.
 */
export function sideDir(db: string, kind: 'uploads' | 'runs'): string {
  if (!isPostgresUrl(db)) return `${db}.${kind}`;
  const url = new URL(db);
  const name = `${url.hostname}_${url.port || '5432'}_${url.pathname.slice(1) || 'postgres'}`.replace(/[^\w.-]+/g, '_');
  return join(tmpdir(), 'dossier', name, kind);
}

const LOOPBACK = /^(?:127\.\d+\.\d+\.\d+|::1|localhost)$/;

/**
 * Starts `dossier serve`: refuses a bind off loopback without `--auth keys`. Resolves when
 * listening; `close()` stops taking requests, waits for running runs and closes the server state.
 */
export async function startServer(
  options: StartOptions,
): Promise<{ url: string; port: number; close: () => Promise<void>; server: ServerType }> {
  const host = options.host ?? '127.0.0.1';
  const auth = options.auth ?? 'none';
  if (auth === 'none' && !LOOPBACK.test(host))
    throw new DossierError(
      'config',
      `serving on ${host} needs --auth keys (without keys, only a loopback address such as 127.0.0.1 may be used)`,
    );
  const state = await openServerState(options.db);
  const uploadsDir = options.uploadsDir ?? (process.env.DOSSIER_UPLOADS_DIR || sideDir(options.db, 'uploads'));
  let built: Awaited<ReturnType<typeof buildApp>>;
  try {
    built = await buildApp({ dossier: options.dossier, state, auth, uploadsDir, ask: options.ask, limits: options.limits }, options.extra);
    // Only runs and in-process jobs whose lease ran out are closed: on a shared database another node
    // may be running the rest. Done now and then at every heartbeat, so a killed node's runs are
    // closed by a surviving node too, not only by a restart.
    const { runs } = built.deps;
    await built.deps.leases.start(async () => {
      await state.failInterruptedJobs();
      await runs.recoverInterrupted();
    });
  } catch (error) {
    await state.close();
    throw error;
  }
  const { app, deps } = built;
  // The vector index loads on the first search: pay that before listening, not in a request.
  // A configured reranker is left out: a paid request for nothing, and its failure would go unseen here.
  await options.dossier.search({ query: 'warm up', k: 1, scope: { collections: '*' }, rerank: false }).catch(() => undefined);
  const server = await new Promise<ServerType>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 8787 }, () => resolve(started));
    started.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  // The in-process queue worker: the same loop as `dossier worker`, on the server's index and state.
  const queue = state.queue();
  const stopWorkers = new AbortController();
  const workers =
    queue && (options.workers ?? 1) > 0
      ? import('./queue.ts').then(({ runWorker }) =>
          runWorker({
            dossier: options.dossier,
            queue,
            concurrency: options.workers ?? 1,
            prepareWorkers: 1, // parsing off the main thread, so searches keep answering while a job runs
            signal: stopWorkers.signal,
            // Finished jobs speak through their row; only what went wrong is worth a line here.
            onJob: ({ job, outcome, detail }) =>
              void (outcome !== 'finished' && process.stderr.write(`dossier serve: job ${job.id} ${outcome}: ${detail}\n`)),
          }),
        )
      : undefined;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    server,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A job in hand goes back to the queue (its committed documents stay) before the state closes.
      stopWorkers.abort();
      await workers?.catch(() => undefined);
      await deps.runs.drain();
      await deps.leases.stop();
      // Open event streams would hold the server open: their runs are over, so they can go.
      (server as import('node:http').Server).closeAllConnections?.();
      await closed;
      await state.close();
    },
  };
}
