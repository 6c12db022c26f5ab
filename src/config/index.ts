import { join } from 'node:path';

/**
 * The settings that come from the environment, in one typed place. Command-line flags and library
 * options override these; the provider keys (OPENAI_API_KEY, …) are read by the model and embedder
 * resolvers, where the provider is known.
 */
export interface Config {
  /** Index file: DOSSIER_DB, default ./dossier.db. */
  db: string;
  /** Snowball stemming language: DOSSIER_LANGUAGE, default english. */
  language: string;
  /** Embedder spec: DOSSIER_EMBEDDER, default offline. */
  embedder: string;
  /** Reranker spec for every search (cohere:<model>, cohere-compatible:<model>, none): DOSSIER_RERANKER, default none. */
  reranker: string | undefined;
  /** Model spec for ask (and for descriptions at ingest when not offline): DOSSIER_MODEL, default offline. */
  model: string;
  /** Seconds one model call may take: DOSSIER_MODEL_TIMEOUT, as written (checked where it is used). */
  modelTimeout: string | undefined;
  /** Policy file (tool permissions, approval): DOSSIER_CONFIG; else ./dossier.config.json when present (config/policy.ts). */
  configFile: string | undefined;
  /** Where runs paused for approval are kept: DOSSIER_RUNS_DIR, default `<db>.runs` beside the index. */
  runsDir: string | undefined;
  /** Web search and fetch for research mode (src/research/web); off unless DOSSIER_WEB_SEARCH is set. */
  web: WebConfig;
  /** Evaluation and test data sets (docs-dev/, hotpotqa/, …): DOSSIER_DATA_DIR; CI sets it. */
  dataDir: string;
}

export interface WebConfig {
  /** DOSSIER_WEB_SEARCH: searxng | tavily | brave | serper; unset = web search off. */
  provider: string | undefined;
  /** DOSSIER_SEARXNG_URL: the SearXNG instance (its JSON format must be enabled). */
  searxngUrl: string | undefined;
  /** DOSSIER_WEB_SEARCH_URL: another endpoint base for the chosen provider (a proxy, a test server). */
  baseUrl: string | undefined;
  tavilyApiKey: string | undefined;
  braveApiKey: string | undefined;
  serperApiKey: string | undefined;
  /** DOSSIER_WEB_SCRAPE=on: research runs may fetch pages (web_scrape) even without a search provider. */
  scrape: boolean;
  /** DOSSIER_WEB_ALLOW: comma-separated hosts, addresses and CIDR ranges web fetches may reach although not public. */
  allow: string[];
}

/** Without DOSSIER_DATA_DIR, a `shared/data` folder beside the checkout (where a development machine keeps it). */
const DEFAULT_DATA_DIR = join(import.meta.dirname, '..', '..', '..', 'shared', 'data');

export function configFromEnv(env: Record<string, string | undefined> = process.env): Config {
  return {
    db: env.DOSSIER_DB || 'dossier.db',
    language: env.DOSSIER_LANGUAGE || 'english',
    embedder: env.DOSSIER_EMBEDDER || 'offline',
    reranker: env.DOSSIER_RERANKER || undefined,
    model: env.DOSSIER_MODEL || 'offline',
    modelTimeout: env.DOSSIER_MODEL_TIMEOUT || undefined,
    configFile: env.DOSSIER_CONFIG || undefined,
    runsDir: env.DOSSIER_RUNS_DIR || undefined,
    dataDir: env.DOSSIER_DATA_DIR || DEFAULT_DATA_DIR,
    web: {
      provider: env.DOSSIER_WEB_SEARCH || undefined,
      searxngUrl: env.DOSSIER_SEARXNG_URL || undefined,
      baseUrl: env.DOSSIER_WEB_SEARCH_URL || undefined,
      tavilyApiKey: env.TAVILY_API_KEY || undefined,
      braveApiKey: env.BRAVE_API_KEY || undefined,
      serperApiKey: env.SERPER_API_KEY || undefined,
      scrape: /^(?:on|true|1|yes)$/i.test(env.DOSSIER_WEB_SCRAPE ?? ''),
      allow: (env.DOSSIER_WEB_ALLOW ?? '')
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
    },
  };
}
