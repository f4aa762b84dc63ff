import { createRequire } from 'node:module';
import type { CustomerApiClient } from '@customer-api/client';
import {
  type CacheHint,
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  McpServer,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type ServerCapabilities,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { type Confirmation, createConfirmation } from './confirm.js';
import { allowsResourceLinks, resourceLinks } from './links.js';
import { errorFields, type Logger, silentLogger } from './log.js';
import { hasResources, registerResources } from './resources.js';
import { callTool } from './tools/call.js';
import { deriveTools, type ToolDefinition } from './tools/derive.js';
import { selectTools, type ToolSelection } from './tools/select.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

/** Name this server reports in `initialize` and in every 2026-07-28 result's `_meta`. */
export const SERVER_NAME = 'customer-api';

/** Guidance every client receives with `initialize`; kept short because it costs context too. */
export const INSTRUCTIONS =
  'Tools call the Customer API, one tool per operation. Look ids up with list_* and get_* tools; never guess ' +
  'them. List tools return 10 summary items unless limit is set: page with cursor=nextCursor; fields names the ' +
  'fields to return (long ones such as pageContext too), and get_* tools return one item in full. Failures ' +
  "come back as error results with the API's error object (code, detail, requestId) and what to do next.";

/** Options of {@link buildServer}. */
export interface BuildServerOptions {
  /** API client used for every call; it carries the API key. */
  client: CustomerApiClient;
  /** Safety switches: read-only, toolsets, tool allow-list. */
  selection?: ToolSelection;
  /** Hard cap on the JSON of one tool result, in bytes. */
  maxResultBytes?: number;
  /** Where tool calls and failures are logged (never stdout). */
  logger?: Logger;
  /** Confirmation of deletes; default: on, with a key valid for this process only. */
  confirmation?: Confirmation;
  /**
   * Whether the key may write (asked when tools are listed or called); false hides every tool
   * that changes something. Default: writes are listed (the API still refuses what a key lacks).
   */
  canWrite?: () => Promise<boolean>;
}

/**
 * How long a 2026-07-28 client may cache what this process lists: the resource templates and
 * `server/discover` are fixed at start, the same for every API key. The tool list depends on the
 * key (its scopes) and, over HTTP, on the request's toolset headers: private, for a minute (the
 * time the scopes of a key are kept). `resources/list` lists live pages (not cacheable).
 */
export const CACHE_HINTS: Readonly<
  Record<'tools/list' | 'resources/templates/list' | 'server/discover', CacheHint>
> = {
  'tools/list': { ttlMs: 60_000, cacheScope: 'private' },
  'resources/templates/list': { ttlMs: 3_600_000, cacheScope: 'public' },
  'server/discover': { ttlMs: 3_600_000, cacheScope: 'public' },
};

const defaultConfirmation = createConfirmation();

/** What the server does, as advertised: nothing here ever changes after start. */
function capabilitiesOf(withResources: boolean): ServerCapabilities {
  return withResources
    ? { tools: { listChanged: false }, resources: { listChanged: false }, completions: {} }
    : { tools: { listChanged: false } };
}

/**
 * The protocol revision a request is served on: a 2026-07-28 request names it in `_meta`, a 2025
 * connection negotiated it in `initialize` (over stateless HTTP, where each request gets a fresh
 * server, the `MCP-Protocol-Version` header says it; without one the spec says 2025-03-26).
 */
function revisionOf(mcp: McpServer, ctx: ServerContext): string {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const claimed = envelope?.[PROTOCOL_VERSION_META_KEY];
  if (typeof claimed === 'string') return claimed;
  return (
    mcp.server.getNegotiatedProtocolVersion() ??
    ctx.http?.req?.headers.get('mcp-protocol-version') ??
    DEFAULT_NEGOTIATED_PROTOCOL_VERSION
  );
}

/** The `tools/list` entry of a tool. */
export function listEntry(tool: ToolDefinition): Tool {
  const { name, title, description, inputSchema, outputSchema, annotations } = tool;
  return { name, title, description, inputSchema, outputSchema, annotations } as Tool;
}

/**
 * Builds an MCP server exposing the selected contract operations as tools, plus page and
 * message-history resources. Connect it to any transport; it holds no per-session state.
 * @throws SelectionError when the selection names unknown toolsets or tools, or leaves none.
 */
export function buildServer(options: BuildServerOptions): McpServer {
  const logger = options.logger ?? silentLogger;
  const confirmation = options.confirmation ?? defaultConfirmation;
  const tools = selectTools(deriveTools(), options.selection);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const listed = tools.map(listEntry);
  const readOnlyListed = listed.filter((tool) => tool.annotations?.readOnlyHint === true);
  const enabled = new Set(byName.keys());
  const canWrite = options.canWrite ?? (() => Promise.resolve(true));
  const mcp = new McpServer(
    { name: SERVER_NAME, title: 'Customer API', version },
    {
      capabilities: capabilitiesOf(hasResources(enabled)),
      instructions: INSTRUCTIONS,
      cacheHints: CACHE_HINTS,
    },
  );
  mcp.server.setRequestHandler('tools/list', async () => ({
    tools: (await canWrite()) ? listed : readOnlyListed,
  }));
  mcp.server.setRequestHandler('tools/call', async (request, ctx) => {
    const found = byName.get(request.params.name);
    const tool = found && (found.annotations.readOnlyHint || (await canWrite())) ? found : undefined;
    if (!tool) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool ${request.params.name}: it does not exist, is switched off on this server (read-only, toolsets, tools) or needs the write scope this key lacks. Call tools/list for the available tools.`,
      );
    }
    const args = request.params.arguments;
    const asked = await confirmation.check(tool, args, ctx, mcp.server.getClientCapabilities());
    if (asked) return asked;
    const started = performance.now();
    const result = await callTool(tool, args, {
      client: options.client,
      maxResultBytes: options.maxResultBytes,
      signal: ctx.mcpReq.signal,
      onUnexpectedError: (error) =>
        logger.error('tool call failed', { tool: tool.name, ...errorFields(error) }),
    });
    if (!result.isError && allowsResourceLinks(revisionOf(mcp, ctx)))
      result.content.push(...resourceLinks(tool.name, result.structuredContent, enabled));
    logger.info('tool call', {
      tool: tool.name,
      ms: Math.round(performance.now() - started),
      isError: !!result.isError,
    });
    return result;
  });
  registerResources(mcp, options.client, enabled, options.maxResultBytes);
  return mcp;
}
