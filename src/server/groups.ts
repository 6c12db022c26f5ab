import type { RouteGroup } from './index.ts';

/**
 * The route groups beyond the core API, each in its own module: the AI SDK chat stream, the
 * OpenAI-compatible endpoint, MCP over Streamable HTTP and the web page. Listed here so
 * `dossier serve` and the tests mount the same set.
 */
export async function optionalRouteGroups(): Promise<RouteGroup[]> {
  const groups: RouteGroup[] = [];
  groups.push((await import('../web/route.ts')).webRoutes);
  groups.push((await import('../mcp/http.ts')).mcpRoutes);
  groups.push((app) => import('./routes/chat.ts').then((m) => m.registerChat(app)));
  groups.push((app) => import('./routes/openai.ts').then((m) => m.registerOpenAI(app)));
  return groups;
}
