/**
 * Cohere's rerank API on the scriptable test server: `POST /v2/rerank` (what `@ai-sdk/cohere` calls,
 * and vLLM and LiteLLM serve) and `POST /v1/rerank` (the older path, which also takes `{text}`
 * documents). Unscripted, the server echoes the order it was sent, with falling scores, so a
 * reranker in the loop changes no ranking: the plumbing can be measured apart from any model.
 *
 *   const server = await startCohereServer();
 *   const cohere = createCohere({ baseURL: server.baseURL, apiKey: 'test' });
 *   server.rerank.enqueue({ type: 'ranking', order: [2, 0, 1] });
 *   server.rerank.enqueue((body) => ({ type: 'ranking', order: reversed(body) }));
 *   ... server.rerank.requests (body: {model, query, documents, top_n}) ...
 *   await server.close();
 */
import { ProtocolServer, type Route } from './server.ts';

export { ProtocolServer, type CommonTurn, type RecordedRequest, type Route } from './server.ts';

/** Turns specific to the rerank routes (besides the common faults). */
export type RerankTurn =
  /** The echo answer (every document, in the order sent), optionally late. */
  | { type: 'ok'; delayMs?: number }
  /** These documents (by index), in this order; scores default to falling from 1. Indices are sent as given, so a test can send a bad one. */
  | { type: 'ranking'; order: number[]; scores?: number[]; delayMs?: number };

export interface CohereServerOptions {
  /** When set, requests must carry `Authorization: Bearer <apiKey>` or get a 401. */
  apiKey?: string;
}

export interface CohereServer {
  server: ProtocolServer;
  /** http://127.0.0.1:<port> */
  url: string;
  /** http://127.0.0.1:<port>/v2 — what `createCohere` (and `cohere-compatible` as DOSSIER_RERANKER_BASE_URL) takes. */
  baseURL: string;
  /** `POST /v2/rerank`. */
  rerank: Route<RerankTurn>;
  /** `POST /v1/rerank`, answering the same turns. */
  rerankV1: Route<RerankTurn>;
  reset(): void;
  close(): Promise<void>;
}

export async function startCohereServer(options: CohereServerOptions = {}): Promise<CohereServer> {
  const server = await ProtocolServer.start();
  const rerank = addRerankRoute(server, '/v2/rerank', options);
  const rerankV1 = addRerankRoute(server, '/v1/rerank', options);
  return {
    server,
    url: server.url,
    baseURL: `${server.url}/v2`,
    rerank,
    rerankV1,
    reset: () => server.reset(),
    close: () => server.close(),
  };
}

/** Adds a Cohere rerank route at `path` to any protocol server. */
export function addRerankRoute(server: ProtocolServer, path: string, options: CohereServerOptions = {}): Route<RerankTurn> {
  const v1 = path.startsWith('/v1/');
  return server.route<RerankTurn>({
    name: v1 ? 'rerank-v1' : 'rerank',
    method: 'POST',
    path,
    errorBody: (_status, message) => cohereError(message),
    handle({ body, request, turn }) {
      if (options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`) {
        return { status: 401, json: cohereError('invalid api token') };
      }
      const parsed = parseRerankRequest(body, v1);
      if ('error' in parsed) return { status: 400, json: cohereError(parsed.error) };
      const count = parsed.documents.length;
      const order = turn?.type === 'ranking' ? turn.order : Array.from({ length: count }, (_, i) => i);
      const scores = turn?.type === 'ranking' && turn.scores ? turn.scores : order.map((_, rank) => (order.length - rank) / order.length);
      const results = order.slice(0, parsed.topN ?? order.length).map((index, rank) => ({ index, relevance_score: scores[rank] }));
      return {
        json: {
          id: `rerank-${server.requests.length}`,
          results,
          meta: { api_version: { version: v1 ? '1' : '2' }, billed_units: { search_units: 1 } },
        },
      };
    },
  });
}

/** The documents of a recorded rerank request, as texts. */
export function rerankDocuments(body: unknown): string[] {
  const documents = (body as { documents?: unknown[] } | undefined)?.documents ?? [];
  return documents.map((document) => (typeof document === 'string' ? document : String((document as { text?: unknown }).text ?? '')));
}

/** Cohere's error shape. */
export function cohereError(message: string): unknown {
  return { message };
}

function parseRerankRequest(body: unknown, v1: boolean): { documents: string[]; topN?: number } | { error: string } {
  if (typeof body !== 'object' || body === null) return { error: 'invalid request: the body is not a JSON object' };
  const { model, query, documents, top_n: topN } = body as Record<string, unknown>;
  if (typeof model !== 'string' || model === '') return { error: 'invalid request: model is required' };
  if (typeof query !== 'string' || query.trim() === '') return { error: 'invalid request: query must be a non-empty string' };
  if (!Array.isArray(documents) || documents.length === 0) return { error: 'invalid request: documents must be a non-empty array' };
  const valid = documents.every(
    (document) => typeof document === 'string' || (v1 && typeof (document as { text?: unknown })?.text === 'string'),
  );
  if (!valid) return { error: `invalid request: documents must be strings${v1 ? ' or {text} objects' : ''}` };
  if (topN !== undefined && (!Number.isInteger(topN) || (topN as number) < 1))
    return { error: 'invalid request: top_n must be a positive integer' };
  return { documents: rerankDocuments(body), topN: topN as number | undefined };
}
