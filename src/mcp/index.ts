export { createMcpServer, documentUri, MAX_CONTENT_CHUNKS, type McpServerOptions } from './server.ts';
export { mcpRoutes } from './http.ts';
