import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { API_VERSION } from '../openapi/build-document';
import { routes } from '../routes';
import { toolDefinitions, type ToolDefinition } from './tools';

export interface McpConfig {
  /** Where the API is: a deployment's ApiUrl, or the local server. */
  baseUrl: string;
  apiKey: string;
  pixelId: string;
}

/** The environment variables `npm run mcp` reads; a missing key or pixel stops it with a message saying which. */
export const MCP_ENV = { baseUrl: 'MERCHANT_API_URL', apiKey: 'MERCHANT_API_KEY', pixelId: 'MERCHANT_PIXEL_ID' } as const;
export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';

export function configFromEnv(env: NodeJS.ProcessEnv): McpConfig {
  const missing = [MCP_ENV.apiKey, MCP_ENV.pixelId].filter((name) => !env[name]);
  if (missing.length > 0) throw new Error(`Set ${missing.join(' and ')} (and ${MCP_ENV.baseUrl}, default ${DEFAULT_BASE_URL})`);
  return { baseUrl: (env[MCP_ENV.baseUrl] || DEFAULT_BASE_URL).replace(/\/+$/, ''), apiKey: env[MCP_ENV.apiKey]!, pixelId: env[MCP_ENV.pixelId]! };
}

/** Arguments to one HTTP request, by the placement the route's operation gives each argument. */
export function requestFor(tool: ToolDefinition, args: Record<string, unknown>, config: McpConfig): { method: string; url: string; body?: string } {
  const route = routes[tool.routeId];
  const query = new URLSearchParams();
  const body: Record<string, unknown> = tool.bodyTakesPixelId ? { pixelId: config.pixelId } : {};
  let path: string = route.path;
  for (const [key, value] of Object.entries(args)) {
    const where = tool.placement[key];
    if (where === 'path') path = path.replace(`{${key}}`, encodeURIComponent(String(value)));
    else if (where === 'body') body[key] = value;
    // An argument the tool does not declare goes to the query string, where the API refuses it by name.
    else query.set(key, typeof value === 'string' ? value : JSON.stringify(value));
  }
  const search = query.size > 0 ? `?${query}` : '';
  const hasBody = Object.values(tool.placement).includes('body');
  return { method: route.method, url: `${config.baseUrl}${path}${search}`, ...(hasBody ? { body: JSON.stringify(body) } : {}) };
}

/** An error answer as an agent reads it best: the status, the message, then each located problem. */
export function readableError(status: number, body: unknown): string {
  const lines = [`HTTP ${status}`];
  if (body && typeof body === 'object') {
    const { message, errors, error } = body as { message?: string; errors?: Array<{ path: string[]; message: string }>; error?: { details?: Array<{ path: string[]; message: string }> } };
    if (message) lines[0] += `: ${message}`;
    for (const issue of errors ?? error?.details ?? []) lines.push(`- ${issue.path.length ? issue.path.join('.') : '(body)'}: ${issue.message}`);
  } else if (body !== undefined) lines.push(String(body));
  return lines.join('\n');
}

/** The MCP server: read-only tools over the API, each one HTTP request with the configured key. */
export function createMcpServer(config: McpConfig, fetchImpl: typeof fetch = fetch): Server {
  const tools = toolDefinitions();
  const server = new Server({ name: 'merchant-analytics-api', version: API_VERSION }, { capabilities: { tools: {} } });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = tools.find((candidate) => candidate.name === request.params.name);
    if (!tool) return { isError: true, content: [{ type: 'text', text: `Unknown tool '${request.params.name}'; the tools are ${tools.map((t) => t.name).join(', ')}` }] };
    const { method, url, body } = requestFor(tool, request.params.arguments ?? {}, config);
    let response: Response;
    try {
      response = await fetchImpl(url, {
        method,
        headers: { 'x-api-key': config.apiKey, 'x-pixel-id': config.pixelId, 'content-type': 'application/json', 'accept-encoding': 'gzip' },
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(60_000),
      });
    } catch (error) {
      return { isError: true, content: [{ type: 'text', text: `The API at ${config.baseUrl} could not be reached: ${(error as Error).message}` }] };
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    if (!response.ok) return { isError: true, content: [{ type: 'text', text: readableError(response.status, parsed) }] };
    return {
      content: [{ type: 'text', text }],
      ...(parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? { structuredContent: parsed as Record<string, unknown> } : {}),
    };
  });
  return server;
}
