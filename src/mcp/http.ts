import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { depsOf, principalOf, type AppContext } from '../server/app.ts';
import type { RouteGroup } from '../server/index.ts';
import { createMcpServer } from './server.ts';

/**
 * MCP over Streamable HTTP at `/mcp`, stateless: each POST gets its own server and transport, scoped
 * to the request's principal (the app's guard has already checked the key and the rate limit), so
 * no session can outlive a revoked key or a changed membership.
 */
export const mcpRoutes: RouteGroup = (app) => {
  // Listed in /openapi.json like every other route; the body is MCP's JSON-RPC, not described here.
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/mcp',
    summary:
      'MCP over Streamable HTTP (stateless, JSON responses): the tools search, ask, research, get_content and list_documents, and the documents as resources',
    requestBody: {
      content: { 'application/json': { schema: { type: 'object', description: 'A JSON-RPC 2.0 message of the Model Context Protocol' } } },
    },
    responses: {
      200: { description: 'The JSON-RPC response', content: { 'application/json': { schema: { type: 'object' } } } },
      202: { description: 'A notification, accepted' },
    },
  });
  app.post('/mcp', async (c: AppContext) => {
    const deps = depsOf(c);
    const server = createMcpServer({
      dossier: deps.dossier,
      scope: principalOf(c).readScope(),
      ask: deps.ask,
      maxQueryChars: deps.limits.queryChars,
    });
    // JSON responses: the request ends with its answer, so the server can be closed right after.
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const request = c.req.raw;
    // A client that hangs up stops its run (closing the server aborts the handlers' signals).
    const onAbort = () => void server.close();
    request.signal.addEventListener('abort', onAbort, { once: true });
    try {
      await server.connect(transport);
      return await transport.handleRequest(request);
    } finally {
      request.signal.removeEventListener('abort', onAbort);
      await server.close();
    }
  });
  // Stateless: no server-initiated stream to GET and no session to DELETE.
  const notAllowed = (c: AppContext) =>
    c.json(
      {
        jsonrpc: '2.0',
        error: { code: -32000, message: 'method not allowed: this MCP endpoint is stateless; POST JSON-RPC messages' },
        id: null,
      },
      405,
      { allow: 'POST' },
    );
  app.get('/mcp', notAllowed);
  app.delete('/mcp', notAllowed);
};
