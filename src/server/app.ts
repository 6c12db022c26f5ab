import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import type { AskOptions } from '../ask/ask.ts';
import type { Dossier } from '../dossier.ts';
import { DossierError, oneLine, type ErrorCode } from '../errors/index.ts';
import { NodeLeases } from './leases.ts';
import { Principal } from './principal.ts';
import { RateLimiter } from './rate-limit.ts';
import { RunManager } from './runs/run-manager.ts';
import type { ServerState } from './state/index.ts';

export type AuthMode = 'none' | 'keys';

export interface ServerOptions {
  dossier: Dossier;
  state: ServerState;
  /** `none`: every request is the local user (loopback only); `keys`: `Authorization: Bearer <key>`. */
  auth: AuthMode;
  /** Where uploads are kept (the server keeps the original files it ingested). */
  uploadsDir: string;
  /** Defaults for every run: the policy file, the runs folder, the model. */
  ask?: Pick<AskOptions, 'policy' | 'runsDir' | 'model'>;
  limits?: Partial<ServerLimits>;
}

export interface ServerLimits {
  /** Largest request body (uploads included), bytes. */
  bodyBytes: number;
  /** Longest query or question, characters. */
  queryChars: number;
  /** Requests per key per minute. */
  requestsPerMinute: number;
}

export const DEFAULT_LIMITS: ServerLimits = { bodyBytes: 64 * 1024 * 1024, queryChars: 4000, requestsPerMinute: 600 };

/** What every route handler gets. */
export interface ServerDeps extends ServerOptions {
  runs: RunManager;
  /** This node's id and the leases of the runs and in-process jobs it holds. */
  leases: NodeLeases;
  limits: ServerLimits;
}

export type Env = { Variables: { principal: Principal; deps: ServerDeps } };
export type AppContext = Context<Env>;

/** The HTTP status of each error code (JSON body `{error:{code,message}}`). */
const STATUS: Partial<Record<ErrorCode, number>> = {
  'bad-input': 400,
  'unsupported-format': 415,
  'parse-failed': 422,
  'empty-document': 422,
  'encrypted-document': 422,
  'not-found': 404,
  unauthorized: 401,
  forbidden: 403,
  'rate-limited': 429,
  'too-large': 413,
  'blocked-address': 400,
  config: 400,
  'read-only': 409,
  'remote-failed': 502,
  'remote-unreachable': 502,
  'remote-auth': 502,
  'remote-timeout': 504,
  // The database is down or restarting: nothing is wrong with the request, so 503 and come back soon.
  'store-unavailable': 503,
};

/** Seconds a client is asked to wait (Retry-After) when the database is unavailable. */
const RETRY_AFTER_SECONDS = 2;

export function errorResponse(c: Context, error: unknown): Response {
  if (error instanceof HTTPException && !DossierError.isInstance(error.cause)) {
    const status = error.status;
    const code = status === 413 ? 'too-large' : status === 401 ? 'unauthorized' : 'bad-input';
    return c.json({ error: { code, message: error.message || 'bad request' } }, status);
  }
  const code = DossierError.isInstance(error) ? error.code : 'failed';
  const status = STATUS[code as ErrorCode] ?? 500;
  if (status === 503) c.header('Retry-After', String(RETRY_AFTER_SECONDS));
  return c.json({ error: { code, message: oneLine(error) } }, status as 400);
}

/** The principal of a request: the local user, or the owner of the bearer key. */
async function authenticate(c: AppContext, deps: ServerDeps): Promise<Principal> {
  if (deps.auth === 'none') return Principal.of(deps.state, await deps.state.localUser());
  const header = c.req.header('authorization') ?? '';
  const key = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
  if (!key) throw new DossierError('unauthorized', 'an API key is required: Authorization: Bearer <key> (dossier keys create --user NAME)');
  const user = await deps.state.userByKey(key);
  if (!user) throw new DossierError('unauthorized', 'this API key is not valid');
  return Principal.of(deps.state, user);
}

/**
 * The Hono app: every `/v1` route authenticated and rate-limited per key, errors as
 * `{error:{code,message}}`, the OpenAPI document at `/openapi.json`. Routes live in `routes/`, one
 * file per resource, each a `register(app)` function.
 */
export function createApp(options: ServerOptions): { app: OpenAPIHono<Env>; deps: ServerDeps } {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const leases = new NodeLeases(options.state);
  const deps: ServerDeps = { ...options, limits, leases, runs: new RunManager(options.state, options.dossier, leases, options.ask) };
  const app = new OpenAPIHono<Env>({
    // A request that fails its schema is a 400 with the first problem named.
    defaultHook: (result, c) => {
      if (!result.success) {
        const issue = result.error.issues[0];
        return c.json({ error: { code: 'bad-input', message: `${issue.path.join('.') || 'body'}: ${issue.message}` } }, 400);
      }
    },
  });
  // A state that can count requests (PostgreSQL) shares the limit between nodes on one database.
  const limiter = new RateLimiter(limits.requestsPerMinute, options.state.countRequest?.bind(options.state));
  app.onError((error, c) => errorResponse(c, error));
  app.notFound((c) => c.json({ error: { code: 'not-found', message: `no route ${c.req.method} ${c.req.path}` } }, 404));
  app.use('*', async (c, next) => {
    c.set('deps', deps);
    await next();
  });
  app.use(
    '/v1/*',
    bodyLimit({
      maxSize: limits.bodyBytes,
      onError: (c) => c.json({ error: { code: 'too-large', message: `the request body is larger than ${limits.bodyBytes} bytes` } }, 413),
    }),
  );
  const guard = async (c: AppContext, next: () => Promise<void>) => {
    const principal = await authenticate(c, deps);
    if (!(await limiter.allow(principal.user.id)))
      throw new DossierError('rate-limited', `more than ${limits.requestsPerMinute} requests a minute for this key; retry in a minute`);
    c.set('principal', principal);
    await next();
  };
  app.use('/v1/*', guard);
  app.use('/mcp', guard);
  app.use('/mcp/*', guard);
  return { app, deps };
}

/** The principal of an authenticated request. */
export function principalOf(c: AppContext): Principal {
  return c.get('principal');
}

export function depsOf(c: AppContext): ServerDeps {
  return c.get('deps');
}

/** A query or question within the length limit, and storable (runs and messages keep it). */
export function checkLength(c: AppContext, text: string, what: string): string {
  const { queryChars } = depsOf(c).limits;
  if (text.length > queryChars) throw new DossierError('bad-input', `${what} is longer than ${queryChars} characters`);
  return checkStorable(text, what);
}

/** PostgreSQL cannot store U+0000 in text, so no backend is given it: the request says what was wrong. */
export function checkStorable(text: string, what: string): string {
  if (text.includes('\u0000')) throw new DossierError('bad-input', `${what} holds a NUL character (U+0000)`);
  return text;
}
