/**
 * `npm run mcp`: an MCP server on stdio for agents, with read-only tools over the API (lib/mcp).
 * Configured by MERCHANT_API_URL (default the local server), MERCHANT_API_KEY and MERCHANT_PIXEL_ID.
 * stdout carries the protocol, so anything else goes to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { configFromEnv, createMcpServer } from '../lib/mcp/server';

let config;
try {
  config = configFromEnv(process.env);
} catch (error) {
  console.error(`mcp: ${(error as Error).message}`);
  process.exit(2);
}
await createMcpServer(config).connect(new StdioServerTransport());
console.error(`mcp: serving ${config.baseUrl} for pixel ${config.pixelId} on stdio`);
