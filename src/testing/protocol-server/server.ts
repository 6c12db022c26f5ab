/**
 * A tiny scriptable HTTP server for protocol tests: real sockets, real clients, no mocks.
 *
 * Routes are registered by protocol modules (openai.ts: embeddings and chat completions; anthropic.ts:
 * Messages). Each route has a queue of scripted "turns": every request takes the next turn, and an
 * empty queue means "answer normally" (or the route's `otherwise` turn, when set). A turn may also be
 * a function of the request body, so a test can answer from what the client sent. Turns common to every protocol (HTTP errors, hangs, malformed
 * bodies, dropped connections, delays) are handled here, so protocol modules only implement the
 * normal answer and their own protocol-specific turns. Replies are JSON or server-sent events.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Faults any route can be scripted with. */
export type CommonTurn =
  /** Answer with this status; `body` defaults to the protocol's error shape (see `errorBody`). */
  | { type: 'status'; status: number; headers?: Record<string, string>; body?: unknown; delayMs?: number }
  /** Never answer; the request stays open until the client gives up or the server closes. */
  | { type: 'hang' }
  /** 200 with a body that is not JSON. */
  | { type: 'malformed'; delayMs?: number }
  /** Destroy the socket without a response: a network error for the client. */
  | { type: 'drop' };

export interface RecordedRequest {
  route: string;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  /** The turn this request was answered with; undefined = normal answer. */
  turn: { type: string } | undefined;
  startedAt: number;
  finishedAt?: number;
}

export interface JsonReply {
  status?: number;
  headers?: Record<string, string>;
  json: unknown;
}

/** One server-sent event; `data` is sent as is (JSON.stringify it yourself, or send `[DONE]`). */
export interface SseEvent {
  event?: string;
  data: string;
}

/** A 200 `text/event-stream` answer, written event by event so clients see real chunking. */
export interface SseReply {
  headers?: Record<string, string>;
  events: SseEvent[];
  /** Pause between events (default 0: each event still goes out in its own write). */
  eventDelayMs?: number;
  /** After this many events: `hang` keeps the stream open and silent, `drop` destroys the socket. */
  interrupt?: { afterEvents: number; mode: 'hang' | 'drop' };
}

export type Reply = JsonReply | SseReply;

/** A scripted turn, or a function choosing one from the parsed request body. */
export type Scripted<T> = T | CommonTurn | ((body: unknown) => T | CommonTurn);

export interface RouteDefinition<T extends { type: string; delayMs?: number }> {
  name: string;
  method: string;
  path: string;
  /** Produces the answer for a normal request (`turn` undefined) or a protocol-specific turn. */
  handle(context: { body: unknown; request: RecordedRequest; turn: T | undefined }): Reply | Promise<Reply>;
  /** Error body in the protocol's shape, used by `status` turns without a body. */
  errorBody?(status: number, message: string): unknown;
  /** What `malformed` sends for this request (default: truncated JSON); streaming routes send a broken event. */
  malformedBody?(body: unknown): { contentType: string; text: string };
}

export class Route<T extends { type: string; delayMs?: number }> {
  readonly requests: RecordedRequest[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private readonly queue: Array<Scripted<T>> = [];
  private fallback: Scripted<T> | undefined;

  constructor(readonly definition: RouteDefinition<T>) {}

  /** What every request gets while the queue is empty (instead of the normal answer), until `reset`. */
  otherwise(turn: Scripted<T>): this {
    this.fallback = turn;
    return this;
  }

  /** Scripts the next `times` requests to this route. */
  enqueue(turn: Scripted<T>, times = 1): this {
    for (let i = 0; i < times; i++) this.queue.push(turn);
    return this;
  }

  /** Turns not yet consumed. */
  get pending(): number {
    return this.queue.length;
  }

  next(): Scripted<T> | undefined {
    return this.queue.shift() ?? this.fallback;
  }

  reset(): void {
    this.requests.length = 0;
    this.queue.length = 0;
    this.fallback = undefined;
    this.inFlight = 0;
    this.maxInFlight = 0;
  }
}

export class ProtocolServer {
  /** e.g. http://127.0.0.1:54321 */
  readonly url: string;
  readonly requests: RecordedRequest[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private readonly routes: Route<any>[] = [];

  private constructor(private readonly server: http.Server) {
    const { port } = server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
  }

  /** Listens on 127.0.0.1 at a random free port. */
  static async start(): Promise<ProtocolServer> {
    let self: ProtocolServer | undefined;
    const server = http.createServer((req, res) => {
      self!.dispatch(req, res).catch((error: unknown) => {
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: `test server bug: ${String(error)}` } }));
        }
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    self = new ProtocolServer(server);
    return self;
  }

  route<T extends { type: string; delayMs?: number }>(definition: RouteDefinition<T>): Route<T> {
    const route = new Route(definition);
    this.routes.push(route);
    return route;
  }

  /** Forgets recorded requests and scripted turns, e.g. between tests sharing one server. */
  reset(): void {
    this.requests.length = 0;
    this.inFlight = 0;
    this.maxInFlight = 0;
    for (const route of this.routes) route.reset();
  }

  async close(): Promise<void> {
    // Hanging requests would otherwise keep close() waiting forever.
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async dispatch(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', this.url).pathname;
    const route = this.routes.find((r) => r.definition.method === req.method && r.definition.path === path);
    if (!route) {
      return sendJson(res, { status: 404, json: { error: { message: `no route for ${req.method} ${path}` } } });
    }
    const text = await readBody(req);
    let body: unknown = text;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      // Left as text: the route decides whether that is an error.
    }
    const scripted = route.next();
    const turn = typeof scripted === 'function' ? scripted(body) : scripted;
    const request: RecordedRequest = {
      route: route.definition.name,
      method: req.method ?? '',
      path,
      headers: req.headers,
      body,
      turn,
      startedAt: Date.now(),
    };
    route.requests.push(request);
    this.requests.push(request);
    this.inFlight++;
    route.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    route.maxInFlight = Math.max(route.maxInFlight, route.inFlight);
    res.on('close', () => {
      this.inFlight--;
      route.inFlight--;
      request.finishedAt = Date.now();
    });

    if (turn && 'delayMs' in turn && turn.delayMs) await delay(turn.delayMs);
    if (res.destroyed) return;
    switch (turn?.type) {
      case 'hang':
        return; // Never answered; closed by the client or by close().
      case 'drop':
        req.socket.destroy();
        return;
      case 'malformed': {
        const malformed = route.definition.malformedBody?.(body) ?? {
          contentType: 'application/json',
          text: '{"object": "list", "data": [',
        };
        res.writeHead(200, { 'content-type': malformed.contentType });
        res.end(malformed.text);
        return;
      }
      case 'status': {
        const t = turn as Extract<CommonTurn, { type: 'status' }>;
        const json = t.body ??
          route.definition.errorBody?.(t.status, `scripted ${t.status}`) ?? { error: { message: `scripted ${t.status}` } };
        return sendJson(res, { status: t.status, headers: t.headers, json });
      }
      default:
        return sendReply(res, await route.definition.handle({ body, request, turn: turn as any }));
    }
  }
}

export function sendReply(res: http.ServerResponse, reply: Reply): Promise<void> | void {
  return 'events' in reply ? sendSse(res, reply) : sendJson(res, reply);
}

export async function sendSse(res: http.ServerResponse, reply: SseReply): Promise<void> {
  if (res.destroyed) return;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...reply.headers });
  // Without this the first events can sit in Nagle's buffer and arrive glued together.
  res.socket?.setNoDelay(true);
  for (let i = 0; i < reply.events.length; i++) {
    if (reply.interrupt && i === reply.interrupt.afterEvents) {
      if (reply.interrupt.mode === 'drop') res.socket?.destroy();
      return; // `hang`: left open until the client gives up or the server closes.
    }
    if (res.destroyed) return;
    const { event, data } = reply.events[i];
    res.write(`${event ? `event: ${event}\n` : ''}data: ${data}\n\n`);
    // A macrotask between writes so each event leaves in its own TCP segment, as real APIs do.
    await delay(reply.eventDelayMs ?? 0);
  }
  res.end();
}

export function sendJson(res: http.ServerResponse, reply: JsonReply): void {
  if (res.destroyed) return;
  const payload = JSON.stringify(reply.json);
  res.writeHead(reply.status ?? 200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
    ...reply.headers,
  });
  res.end(payload);
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
