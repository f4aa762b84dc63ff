import { createClient } from '@customer-api/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from './server.js';

/**
 * Budget for the JSON of the full `tools/list` (measured size is in docs/decisions.md, MCP
 * section): 2 KB a tool on average, for the 46 operations.
 */
const TOOLS_LIST_BUDGET_BYTES = 46 * 2_000;

let tools: Tool[];
let readOnlyTools: Tool[];

async function listTools(readOnly: boolean): Promise<Tool[]> {
  const api = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'unused' });
  const server = buildServer({ client: api, selection: { readOnly } });
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
  tools = await listTools(false);
  readOnlyTools = await listTools(true);
});

describe('tools/list', () => {
  // A contract change that alters a tool shows up as a diff of this file in review;
  // `pnpm --filter @customer-api/mcp exec vitest run -u src/tools-list.test.ts` accepts it.
  it('matches the committed snapshot', async () => {
    await expect(`${JSON.stringify(tools, null, 2)}\n`).toMatchFileSnapshot(
      './__snapshots__/tools-list.snap',
    );
  });

  it('stays within its context budget', () => {
    const bytes = Buffer.byteLength(JSON.stringify(tools));
    expect(bytes).toBeLessThan(TOOLS_LIST_BUDGET_BYTES);
    expect(Buffer.byteLength(JSON.stringify(readOnlyTools))).toBeLessThan(bytes / 2);
    for (const tool of tools) expect(tool.description?.length ?? 0).toBeLessThan(450);
  });
});
