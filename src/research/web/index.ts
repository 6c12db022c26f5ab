/** Web search and page fetching for research mode: providers, the SSRF-guarded fetcher and the agent tools. */
export { AllowList, pinnedLookup, refusalReason, vetUrl, type AddressPolicy, type LookupAll, type VettedTarget } from './address-guard.ts';
export { FETCH_DEFAULTS, fetchPage, htmlToMarkdown, type FetchedPage, type FetchPageOptions } from './fetch-page.ts';
export {
  braveProvider,
  searxngProvider,
  serperProvider,
  tavilyProvider,
  WEB_SEARCH_PROVIDERS,
  webSearchProviderFromSettings,
  plainText,
  type ProviderOptions,
  type WebSearchOptions,
  type WebSearchProvider,
  type WebSearchProviderId,
  type WebSearchResult,
  type WebSearchSettings,
} from './search-provider.ts';
export {
  isWebChunk,
  pageChunks,
  searchResultChunks,
  WEB_COLLECTION,
  webChunkId,
  webScrapeTool,
  webSearchTool,
  webTools,
  type PageChunkOptions,
  type WebChunk,
  type WebChunkMetadata,
} from './web-tools.ts';
