/** Research mode: the planner over nested RAG agents, its tools, the critique, the Python sandbox and the web tools. */
import type { WebConfig } from '../config/index.ts';
import type { AgentTool } from '../agent/tools/tool.ts';
import { createPythonTool } from './python/index.ts';
import { webTools } from './web/index.ts';

export { runResearch, RESEARCH_DEFAULTS, type ResearchOptions, type ResearchResult } from './run-research.ts';
export { critiqueDraft, checkClaim, claimsOf, markFindings, type Critique, type EvidenceText } from '../evidence/claims.ts';
export { ResearchState, type SubagentRecord } from './state.ts';
export { PythonSandbox, runPython, type PythonResult, type PythonRunOptions } from './python/index.ts';
export { fetchPage, webSearchProviderFromSettings, type FetchedPage, type WebSearchProvider, type WebSearchResult } from './web/index.ts';

/**
 * The optional research tools the configuration turns on: python always (it is sandboxed), the web
 * tools only when configured — web_search with a provider (DOSSIER_WEB_SEARCH and its key),
 * web_scrape with a provider or DOSSIER_WEB_SCRAPE=on. The policy file can still deny any of them.
 */
export function configuredResearchTools(web: WebConfig): AgentTool[] {
  const searchOn = Boolean(web.provider && !/^(?:off|none)$/i.test(web.provider.trim()));
  const online = searchOn || web.scrape ? webTools(web).filter((tool) => tool.name !== 'web_search' || searchOn) : [];
  return [createPythonTool(), ...online];
}
