/**
 * Web search behind one interface, with SearXNG, Tavily, Brave and Serper speaking their real APIs.
 * Every provider runs the one contract suite (web-search-contract.ts). The base URLs are operator
 * settings, not model input, so these requests do not go through the address guard (a self-hosted
 * SearXNG on localhost is the common case).
 */
import { DossierError, oneLine } from '../../errors/index.ts';

export interface WebSearchResult {
  url: string;
  title: string;
  snippet: string;
}

export interface WebSearchOptions {
  /** Results wanted at most (default 5). */
  limit?: number;
  signal?: AbortSignal;
}

export interface WebSearchProvider {
  /** "searxng", "tavily", "brave", "serper" (or a caller's own). */
  readonly id: string;
  search(query: string, options?: WebSearchOptions): Promise<WebSearchResult[]>;
}

export interface ProviderOptions {
  /** Overrides the provider's endpoint base (tests point it at a local server). */
  baseUrl?: string;
  /** One request; default 15 000 ms. */
  timeoutMs?: number;
}

export const WEB_SEARCH_PROVIDERS = ['searxng', 'tavily', 'brave', 'serper'] as const;
export type WebSearchProviderId = (typeof WEB_SEARCH_PROVIDERS)[number];

const DEFAULT_LIMIT = 5;

/** Provider names as people write them, for messages. */
const NAMES: Record<string, string> = { searxng: 'SearXNG', tavily: 'Tavily', brave: 'Brave Search', serper: 'Serper' };

function limitOf(options: WebSearchOptions | undefined): number {
  return Math.max(1, Math.min(50, Math.floor(options?.limit ?? DEFAULT_LIMIT)));
}

/** Plain text from a snippet that may carry markup (Brave bolds matches with <strong>) or entities. */
export function plainText(text: unknown): string {
  if (typeof text !== 'string') return '';
  return text
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos|nbsp|#39);/gi, (_, entity: string) => {
      const e = entity.toLowerCase();
      if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
      if (e.startsWith('#')) return String.fromCodePoint(Number(e.slice(1)));
      return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' } as Record<string, string>)[e] ?? '';
    })
    .replace(/\s+/g, ' ')
    .trim();
}

/** Results from a provider's list: http(s) URLs only, text made plain, at most `limit`. */
function mapResults(
  items: unknown,
  limit: number,
  pick: (item: Record<string, unknown>) => { url: unknown; title: unknown; snippet: unknown },
): WebSearchResult[] {
  if (!Array.isArray(items)) return [];
  const out: WebSearchResult[] = [];
  for (const item of items) {
    if (out.length >= limit) break;
    if (!item || typeof item !== 'object') continue;
    const { url, title, snippet } = pick(item as Record<string, unknown>);
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) continue;
    out.push({ url, title: plainText(title) || url, snippet: plainText(snippet) });
  }
  return out;
}

/** The provider's own words from an error body ({detail}, {message}, {error}), cut short. */
function reasonIn(body: string): string {
  try {
    const json = JSON.parse(body) as Record<string, unknown>;
    const value = [json.detail, json.message, json.error, (json.error as Record<string, unknown> | undefined)?.message].find(
      (v) => typeof v === 'string',
    );
    if (typeof value === 'string') return `: ${oneLine(value).slice(0, 120)}`;
    if (json.detail && typeof json.detail === 'object') {
      const inner = (json.detail as Record<string, unknown>).error;
      if (typeof inner === 'string') return `: ${oneLine(inner).slice(0, 120)}`;
    }
  } catch {
    // not JSON: say nothing rather than echo a page of HTML
  }
  return '';
}

/** One JSON request with the provider's name on every failure. */
async function requestJson(
  id: string,
  url: URL,
  init: RequestInit,
  options: WebSearchOptions | undefined,
  timeoutMs: number,
): Promise<Record<string, unknown>> {
  const name = NAMES[id] ?? id;
  options?.signal?.throwIfAborted();
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options?.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  let response: Response;
  let body: string;
  try {
    response = await fetch(url, { ...init, signal, headers: { accept: 'application/json', 'user-agent': 'Dossier/1', ...init.headers } });
    body = await response.text();
  } catch (error) {
    if (options?.signal?.aborted) throw options.signal.reason ?? error;
    if (deadline.aborted) throw new DossierError('remote-timeout', `${name} search timed out after ${timeoutMs} ms`);
    const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
    throw new DossierError('remote-unreachable', `${name} search could not reach ${url.origin}: ${cause?.code ?? oneLine(error)}`, {
      cause: error,
    });
  }
  if (response.status === 401 || response.status === 403)
    throw new DossierError('remote-auth', `${name} search refused the API key (HTTP ${response.status})${reasonIn(body)}`);
  if (response.status === 429)
    throw new DossierError('remote-failed', `${name} search is rate-limited (HTTP 429); try again later${reasonIn(body)}`);
  if (!response.ok) throw new DossierError('remote-failed', `${name} search failed with HTTP ${response.status}${reasonIn(body)}`);
  try {
    const json = JSON.parse(body) as unknown;
    if (json && typeof json === 'object' && !Array.isArray(json)) return json as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new DossierError(
    'remote-failed',
    `${name} search answered with something other than a JSON object${id === 'searxng' ? ' (is format=json enabled in its settings.yml search.formats?)' : ''}`,
  );
}

function endpoint(base: string, path: string): URL {
  return new URL(path.replace(/^\//, ''), base.endsWith('/') ? base : `${base}/`);
}

/** SearXNG's JSON API: GET {base}/search?q=…&format=json → {results:[{url, title, content}]}; it has no result-count parameter. */
export function searxngProvider(options: ProviderOptions & { baseUrl: string }): WebSearchProvider {
  return {
    id: 'searxng',
    async search(query, searchOptions) {
      const url = endpoint(options.baseUrl, 'search');
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const json = await requestJson('searxng', url, { method: 'GET' }, searchOptions, options.timeoutMs ?? 15_000);
      return mapResults(json.results, limitOf(searchOptions), (r) => ({ url: r.url, title: r.title, snippet: r.content }));
    },
  };
}

/** Tavily: POST https://api.tavily.com/search, key as a Bearer token, {query, max_results} → {results:[{url, title, content}]}. */
export function tavilyProvider(options: ProviderOptions & { apiKey: string }): WebSearchProvider {
  return {
    id: 'tavily',
    async search(query, searchOptions) {
      const limit = limitOf(searchOptions);
      const url = endpoint(options.baseUrl ?? 'https://api.tavily.com', 'search');
      const init: RequestInit = {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` },
        body: JSON.stringify({ query, max_results: Math.min(limit, 20), search_depth: 'basic', include_answer: false }),
      };
      const json = await requestJson('tavily', url, init, searchOptions, options.timeoutMs ?? 15_000);
      return mapResults(json.results, limit, (r) => ({ url: r.url, title: r.title, snippet: r.content }));
    },
  };
}

/** Brave: GET https://api.search.brave.com/res/v1/web/search?q=…&count=N with X-Subscription-Token → {web:{results:[{url, title, description}]}}. */
export function braveProvider(options: ProviderOptions & { apiKey: string }): WebSearchProvider {
  return {
    id: 'brave',
    async search(query, searchOptions) {
      const limit = limitOf(searchOptions);
      const url = endpoint(options.baseUrl ?? 'https://api.search.brave.com', 'res/v1/web/search');
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(Math.min(limit, 20)));
      const json = await requestJson(
        'brave',
        url,
        { method: 'GET', headers: { 'x-subscription-token': options.apiKey } },
        searchOptions,
        options.timeoutMs ?? 15_000,
      );
      const web = json.web as Record<string, unknown> | undefined;
      return mapResults(web?.results, limit, (r) => ({ url: r.url, title: r.title, snippet: r.description }));
    },
  };
}

/** Serper (Google results): POST https://google.serper.dev/search with X-API-KEY, {q, num} → {organic:[{link, title, snippet}]}. */
export function serperProvider(options: ProviderOptions & { apiKey: string }): WebSearchProvider {
  return {
    id: 'serper',
    async search(query, searchOptions) {
      const limit = limitOf(searchOptions);
      const url = endpoint(options.baseUrl ?? 'https://google.serper.dev', 'search');
      const init: RequestInit = {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': options.apiKey },
        body: JSON.stringify({ q: query, num: Math.min(limit, 100) }),
      };
      const json = await requestJson('serper', url, init, searchOptions, options.timeoutMs ?? 15_000);
      return mapResults(json.organic, limit, (r) => ({ url: r.link, title: r.title, snippet: r.snippet }));
    },
  };
}

/** The web settings of Config (config/index.ts). */
export interface WebSearchSettings {
  /** DOSSIER_WEB_SEARCH: searxng | tavily | brave | serper; unset = web search off. */
  provider?: string;
  /** DOSSIER_SEARXNG_URL. */
  searxngUrl?: string;
  /** DOSSIER_WEB_SEARCH_URL: another endpoint base for the chosen provider (a proxy, a test server). */
  baseUrl?: string;
  tavilyApiKey?: string;
  braveApiKey?: string;
  serperApiKey?: string;
}

/** The configured provider; a 'config' error saying what to set when web search is off or incomplete. */
export function webSearchProviderFromSettings(settings: WebSearchSettings, options: { timeoutMs?: number } = {}): WebSearchProvider {
  const id = settings.provider?.trim().toLowerCase();
  if (!id || id === 'off' || id === 'none') {
    throw new DossierError(
      'config',
      'web search is off: set DOSSIER_WEB_SEARCH to searxng (with DOSSIER_SEARXNG_URL), tavily, brave or serper (with TAVILY_API_KEY, BRAVE_API_KEY or SERPER_API_KEY)',
    );
  }
  const needKey = (key: string | undefined, variable: string): string => {
    if (!key) throw new DossierError('config', `DOSSIER_WEB_SEARCH=${id} needs ${variable}`);
    return key;
  };
  const common = { baseUrl: settings.baseUrl || undefined, timeoutMs: options.timeoutMs };
  switch (id) {
    case 'searxng': {
      const baseUrl = settings.baseUrl || settings.searxngUrl;
      if (!baseUrl) throw new DossierError('config', 'DOSSIER_WEB_SEARCH=searxng needs DOSSIER_SEARXNG_URL (e.g. http://localhost:8080)');
      return searxngProvider({ ...common, baseUrl });
    }
    case 'tavily':
      return tavilyProvider({ ...common, apiKey: needKey(settings.tavilyApiKey, 'TAVILY_API_KEY') });
    case 'brave':
      return braveProvider({ ...common, apiKey: needKey(settings.braveApiKey, 'BRAVE_API_KEY') });
    case 'serper':
      return serperProvider({ ...common, apiKey: needKey(settings.serperApiKey, 'SERPER_API_KEY') });
    default:
      throw new DossierError('config', `DOSSIER_WEB_SEARCH must be ${WEB_SEARCH_PROVIDERS.join(', ')} or off, got "${settings.provider}"`);
  }
}
