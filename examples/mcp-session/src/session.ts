import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/**
 * The MCP server's program (`customer-api-mcp`) from the workspace; outside this repository,
 * start it with `npx -y @customer-api/mcp` instead.
 */
export const MCP_MAIN = join(
  dirname(createRequire(import.meta.url).resolve('@customer-api/mcp/package.json')),
  'dist/main.js',
);

/** Where the MCP server finds the API. */
export interface ApiAccess {
  baseUrl: string;
  apiKey: string;
}

/**
 * Connects an MCP client to `customer-api-mcp` over stdio, the way desktop assistants do: the
 * client starts the server as a child process and hands it the key through its environment.
 * Deliberately the 2025-era client (`@modelcontextprotocol/sdk`, `initialize`): the server also
 * speaks revision 2026-07-28, and clients written before it keep working unchanged.
 */
export async function connect(api: ApiAccess): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    // Every tool: the default toolset of twelve leaves out create_page, which this session calls.
    args: [MCP_MAIN, '--toolsets', 'all'],
    env: {
      PATH: process.env.PATH ?? '',
      CUSTOMER_API_KEY: api.apiKey,
      CUSTOMER_API_BASE_URL: api.baseUrl,
    },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'customer-api-example', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** One tool call's outcome. */
export interface ToolOutcome {
  isError: boolean;
  /** The result as data (successful calls). */
  structured: Record<string, unknown> | undefined;
  /** The text the model reads: on errors, what failed, what to do, then `Error object: {…}`. */
  text: string;
}

/** Calls a tool and returns its structured content. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolOutcome> {
  const result = await client.callTool({ name, arguments: args });
  const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return {
    isError: result.isError === true,
    structured: result.structuredContent as Record<string, unknown> | undefined,
    text: content.map((part) => (part.type === 'text' ? part.text : '')).join('\n'),
  };
}

/**
 * What an assistant would do on a first look: list the tools, create a page, find it in the list,
 * and ask for a page that does not exist (an error result the model can read, not an exception).
 */
export async function tour(
  client: Client,
  log: (line: string) => void,
): Promise<{ tools: string[]; pageId: string }> {
  const { tools } = await client.listTools();
  log(
    `${tools.length} tools, e.g. ${tools
      .slice(0, 4)
      .map((tool) => tool.name)
      .join(', ')}`,
  );
  const created = await callTool(client, 'create_page', {
    name: 'From MCP',
    title: 'Created by an assistant',
    pageContext: 'A page created through the MCP server.',
    brandId: 'brand_mcp',
    pageType: 'inbound',
  });
  const pageId = String(created.structured?.pageId);
  log(`create_page -> ${pageId}`);
  const listed = await callTool(client, 'list_pages', { limit: 5 });
  log(`list_pages -> totalCount ${String(listed.structured?.totalCount)}`);
  const missing = await callTool(client, 'get_page', { pageId: 'page_00000000000000000000000000' });
  log(`get_page (unknown id) -> isError ${missing.isError}: ${missing.text.split('\n')[0]}`);
  return { tools: tools.map((tool) => tool.name), pageId };
}
