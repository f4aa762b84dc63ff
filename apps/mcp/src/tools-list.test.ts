import { createClient } from '@customer-api/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from './server.js';
import { DEFAULT_TOOLSET, type ToolSelection } from './tools/select.js';

/**
 * Budgets for the JSON of `tools/list` (measured sizes are in docs/benchmarks.md, MCP section):
 * the default toolset, what an assistant loads unless told otherwise, within 32 KB (about 8,000
 * tokens; 30.3 KB measured); every tool (`--toolsets all`, every input property described,
 * nullable values as portable `anyOf` branches, `expectedEtag` on writes and `etag` on results)
 * 2.35 KB a tool on average, for the 46 operations.
 */
const DEFAULT_LIST_BUDGET_BYTES = 32_000;
const FULL_LIST_BUDGET_BYTES = 46 * 2_350;

let defaults: Tool[];
let tools: Tool[];
let readOnlyTools: Tool[];

async function listTools(selection: ToolSelection): Promise<Tool[]> {
  const api = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'unused' });
  const server = buildServer({ client: api, selection });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: 'snapshot', version: '1.0.0' });
  await client.connect(a);
  const { tools } = await client.listTools();
  await client.close();
  await server.close();
  await api.close();
  return tools;
}

beforeAll(async () => {
  defaults = await listTools({ toolsets: ['default'] });
  tools = await listTools({ toolsets: ['all'] });
  readOnlyTools = await listTools({ toolsets: ['all'], readOnly: true });
});

describe('tools/list', () => {
  // A contract change that alters a tool shows up as a diff of these files in review;
  // `pnpm --filter @customer-api/mcp exec vitest run -u src/tools-list.test.ts` accepts it.
  it('matches the committed snapshots: the default toolset and every tool', async () => {
    await expect(`${JSON.stringify(defaults, null, 2)}\n`).toMatchFileSnapshot(
      './__snapshots__/tools-list.snap',
    );
    await expect(`${JSON.stringify(tools, null, 2)}\n`).toMatchFileSnapshot(
      './__snapshots__/tools-list-all.snap',
    );
  });

  it('keeps the default toolset within its context budget', () => {
    expect(defaults.map((tool) => tool.name)).toEqual(DEFAULT_TOOLSET);
    expect(Buffer.byteLength(JSON.stringify(defaults))).toBeLessThan(DEFAULT_LIST_BUDGET_BYTES);
  });

  it('keeps every tool within its budget, read-only under half', () => {
    const bytes = Buffer.byteLength(JSON.stringify(tools));
    expect(bytes).toBeLessThan(FULL_LIST_BUDGET_BYTES);
    expect(Buffer.byteLength(JSON.stringify(readOnlyTools))).toBeLessThan(bytes / 2);
    for (const tool of tools) expect(tool.description?.length ?? 0).toBeLessThan(450);
  });
});
