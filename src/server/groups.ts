import type { RouteGroup } from './index.ts';

/**
 * The route groups beyond the core API, each in its own module: the AI SDK chat stream, the
 * OpenAI-compatible endpoint, MCP over Streamable HTTP and the web page. Listed here so
 * `dossier serve` and the tests mount the same set.
 */
export async function optionalRouteGroups(): Promise<RouteGroup[]> {
  return [];
}
