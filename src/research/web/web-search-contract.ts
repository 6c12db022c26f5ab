/**
 * The behaviour every WebSearchProvider must have, as one node:test suite run against a local HTTP
 * server on 127.0.0.1 that speaks the provider's protocol (a `SearchProtocol`: where the real API
 * takes the query, the key and the count, and how it answers). The protocols of the four built-in
 * providers are written down here from their public API documentation, apart from the code that
 * calls them, so a provider that puts the key in the wrong place fails.
 *
 *   webSearchContract('brave', BRAVE_PROTOCOL, (baseUrl, apiKey) => braveProvider({ baseUrl, apiKey }));
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { WebSearchProvider, WebSearchResult } from './search-provider.ts';

/** One request as the local server received it. */
export interface RecordedRequest {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: string;
  json: Record<string, unknown> | undefined;
}

export interface SearchProtocol {
  /** For messages: "SearXNG", "Tavily", … (errors must name it). */
  name: RegExp;
  method: 'GET' | 'POST';
  /** Request path the API serves. */
  path: string;
  queryOf(request: RecordedRequest): unknown;
  /** Where the API key travels; undefined for keyless APIs. */
  keyOf?(request: RecordedRequest): unknown;
  /** The result count the request asks for, when the API takes one. */
  countOf?(request: RecordedRequest): unknown;
  /** Other things a real server insists on (SearXNG: format=json), as an assertion. */
  check?(request: RecordedRequest): void;
  /** The API's JSON answer carrying `results`. */
  respond(results: readonly WebSearchResult[]): unknown;
}

const bearer = (request: RecordedRequest) => String(request.headers.authorization ?? '').replace(/^Bearer\s+/i, '');

/** SearXNG: GET /search?q=…&format=json → {query, number_of_results, results:[{url, title, content, engine}]}. */
export const SEARXNG_PROTOCOL: SearchProtocol = {
  name: /SearXNG/,
  method: 'GET',
  path: '/search',
  queryOf: (request) => request.url.searchParams.get('q'),
  check: (request) => assert.equal(request.url.searchParams.get('format'), 'json', 'SearXNG answers JSON only with format=json'),
  respond: (results) => ({
    query: 'q',
    number_of_results: results.length,
    results: results.map((r) => ({ url: r.url, title: r.title, content: r.snippet, engine: 'duckduckgo', score: 1, category: 'general' })),
    answers: [],
    suggestions: [],
    unresponsive_engines: [],
  }),
};

/** Tavily: POST /search, `Authorization: Bearer tvly-…`, {query, max_results} → {query, results:[{title, url, content, score}]}. */
export const TAVILY_PROTOCOL: SearchProtocol = {
  name: /Tavily/,
  method: 'POST',
  path: '/search',
  queryOf: (request) => request.json?.query,
  keyOf: bearer,
  countOf: (request) => request.json?.max_results,
  check: (request) => assert.match(String(request.headers['content-type']), /application\/json/),
  respond: (results) => ({
    query: 'q',
    answer: null,
    images: [],
    response_time: 0.4,
    results: results.map((r) => ({ title: r.title, url: r.url, content: r.snippet, score: 0.9, raw_content: null })),
  }),
};

/** Brave: GET /res/v1/web/search?q=…&count=N, `X-Subscription-Token` → {type:"search", web:{results:[{title, url, description}]}}. */
export const BRAVE_PROTOCOL: SearchProtocol = {
  name: /Brave/,
  method: 'GET',
  path: '/res/v1/web/search',
  queryOf: (request) => request.url.searchParams.get('q'),
  keyOf: (request) => request.headers['x-subscription-token'],
  countOf: (request) => Number(request.url.searchParams.get('count')),
  respond: (results) => ({
    type: 'search',
    query: { original: 'q' },
    // Brave marks matched words with <strong>; providers must hand back plain text.
    web: {
      type: 'search',
      results: results.map((r) => ({
        type: 'search_result',
        title: r.title,
        url: r.url,
        description: r.snippet.replace(/(\w+)$/, '<strong>$1</strong>'),
        language: 'en',
      })),
    },
  }),
};

/** Serper: POST /search, `X-API-KEY`, {q, num} → {searchParameters, organic:[{title, link, snippet, position}]}. */
export const SERPER_PROTOCOL: SearchProtocol = {
  name: /Serper/,
  method: 'POST',
  path: '/search',
  queryOf: (request) => request.json?.q,
  keyOf: (request) => request.headers['x-api-key'],
  countOf: (request) => request.json?.num,
  check: (request) => assert.match(String(request.headers['content-type']), /application\/json/),
  respond: (results) => ({
    searchParameters: { q: 'q', type: 'search' },
    organic: results.map((r, i) => ({ title: r.title, link: r.url, snippet: r.snippet, position: i + 1 })),
  }),
};

/** What the local server does with the next request. */
export interface Scripted {
  status?: number;
  /** Body for an error status (JSON). */
  errorBody?: unknown;
  /** Never answers (for abort tests). */
  hang?: boolean;
  results?: readonly WebSearchResult[];
}

export interface ProtocolServer {
  baseUrl: string;
  requests: RecordedRequest[];
  /** Scripts the next request(s); cleared by `reset()`. */
  script: Scripted;
  reset(): void;
  close(): Promise<void>;
}

/** Twelve results; some titles and snippets carry markup and entities a provider must make plain. */
export const SAMPLE_RESULTS: readonly WebSearchResult[] = Array.from({ length: 12 }, (_, i) => ({
  url: `https://example.org/page-${i + 1}`,
  title: `Falcon survey page ${i + 1}`,
  snippet: `Forty nesting pairs were counted along the cliffs, report number ${i + 1}`,
}));

/** A local server speaking `protocol` on 127.0.0.1 (port 0): answers on its path, 404 elsewhere. */
export async function startProtocolServer(
  protocol: SearchProtocol,
  options: { results?: readonly WebSearchResult[] } = {},
): Promise<ProtocolServer> {
  const requests: RecordedRequest[] = [];
  const state: ProtocolServer = {
    baseUrl: '',
    requests,
    script: {},
    reset() {
      requests.length = 0;
      state.script = {};
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      let json: Record<string, unknown> | undefined;
      try {
        json = body ? (JSON.parse(body) as Record<string, unknown>) : undefined;
      } catch {
        json = undefined;
      }
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      requests.push({ method: req.method ?? '', url, headers: req.headers, body, json });
      const script = state.script;
      if (script.hang) return; // the client must give up by itself
      const send = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (req.method !== protocol.method || url.pathname !== protocol.path) return send(404, { error: 'not found' });
      if (script.status) return send(script.status, script.errorBody ?? { error: `status ${script.status}` });
      send(200, protocol.respond(script.results ?? options.results ?? SAMPLE_RESULTS));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

export const CONTRACT_KEY = 'contract-key-0123456789';

/**
 * The contract: the request carries the query and the key where the real API takes them, results
 * are mapped to {url, title, snippet} in order and as plain text, the limit is respected,
 * HTTP 401/429/500 are one-line errors naming the provider, and an abort stops a hanging request.
 */
export function webSearchContract(
  id: string,
  protocol: SearchProtocol,
  makeProvider: (baseUrl: string, apiKey: string) => WebSearchProvider,
): void {
  describe(`web search contract: ${id}`, () => {
    let server: ProtocolServer;
    let provider: WebSearchProvider;
    before(async () => {
      server = await startProtocolServer(protocol);
      provider = makeProvider(server.baseUrl, CONTRACT_KEY);
    });
    after(async () => {
      await server?.close();
    });

    it('has an id', () => {
      assert.equal(provider.id, id);
      assert.equal(typeof provider.search, 'function');
    });

    it('sends the query (and the key) where the API takes them, and maps the results in order', async () => {
      server.reset();
      const query = 'falcon survey "northern cliffs" & more';
      const results = await provider.search(query, { limit: 5 });
      assert.equal(server.requests.length, 1, 'one request');
      const [request] = server.requests;
      assert.equal(request.method, protocol.method);
      assert.equal(request.url.pathname, protocol.path);
      assert.equal(protocol.queryOf(request), query, 'the query arrives intact');
      if (protocol.keyOf) assert.equal(protocol.keyOf(request), CONTRACT_KEY, 'the key travels where the API takes it');
      else
        assert.doesNotMatch(
          JSON.stringify(request.headers) + request.url.search + request.body,
          new RegExp(CONTRACT_KEY),
          'a keyless API gets no key',
        );
      protocol.check?.(request);
      assert.deepEqual(results, SAMPLE_RESULTS.slice(0, 5), 'url, title and snippet, plain text, in the order given');
    });

    it('respects the limit (and asks for no more than it needs when the API takes a count)', async () => {
      for (const limit of [1, 3, 10]) {
        server.reset();
        const results = await provider.search('falcons', { limit });
        assert.equal(results.length, Math.min(limit, SAMPLE_RESULTS.length), `limit ${limit}`);
        if (protocol.countOf) {
          const asked = Number(protocol.countOf(server.requests[0]));
          assert.ok(asked >= limit && asked <= Math.max(limit, 20), `asked for ${asked} results with limit ${limit}`);
        }
      }
    });

    it('skips results without an http(s) URL, and an empty answer is an empty list', async () => {
      server.reset();
      server.script = { results: [{ url: 'javascript:alert(1)', title: 'x', snippet: 'y' }, SAMPLE_RESULTS[0]] };
      assert.deepEqual(await provider.search('falcons', { limit: 5 }), [SAMPLE_RESULTS[0]]);
      server.script = { results: [] };
      assert.deepEqual(await provider.search('nothing at all', { limit: 5 }), []);
    });

    for (const status of [401, 429, 500]) {
      it(`HTTP ${status} is a one-line error naming the provider`, async () => {
        server.reset();
        server.script = { status, errorBody: { detail: { error: 'Invalid API key\nsecond line' } } };
        const error = await provider.search('falcons', { limit: 3 }).then(
          () => assert.fail('no error'),
          (e: unknown) => e as Error,
        );
        assert.ok(error instanceof Error);
        assert.match(error.message, protocol.name, error.message);
        assert.match(error.message, new RegExp(String(status)));
        assert.ok(!error.message.includes('\n'), `one line: ${JSON.stringify(error.message)}`);
        assert.ok(!error.message.includes(CONTRACT_KEY), 'the key is never shown');
      });
    }

    it('a server that is not there is a one-line error naming the provider', async () => {
      const gone = makeProvider('http://127.0.0.1:1', CONTRACT_KEY);
      const error = await gone.search('falcons', { limit: 3 }).then(
        () => assert.fail('no error'),
        (e: unknown) => e as Error,
      );
      assert.match(error.message, protocol.name);
      assert.ok(!error.message.includes('\n'));
    });

    it('honours an abort: an aborted signal rejects at once, and aborting a hanging request stops it', async () => {
      server.reset();
      await assert.rejects(provider.search('falcons', { limit: 3, signal: AbortSignal.abort(new Error('run aborted')) }), /run aborted/);
      server.script = { hang: true };
      const controller = new AbortController();
      const started = performance.now();
      const running = provider.search('falcons', { limit: 3, signal: controller.signal });
      setTimeout(() => controller.abort(new Error('run aborted')), 50);
      await assert.rejects(running, /run aborted/);
      assert.ok(performance.now() - started < 3000, 'stopped promptly');
    });
  });
}
