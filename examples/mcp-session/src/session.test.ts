import { JSON_OPERATION_NAMES } from '@customer-api/contract';
import { type RunningServer, startServer } from '@customer-api/example-support';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connect, tour } from './session.js';

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

describe('MCP client session over stdio against a real server', () => {
  let server: RunningServer;
  let client: Client;

  beforeAll(async () => {
    server = await startServer();
    client = await connect(server);
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  it('lists a tool per JSON operation, creates and lists a page, and reads errors as results', async () => {
    const lines: string[] = [];
    const { tools, pageId } = await tour(client, (line) => lines.push(line));
    expect(tools.sort()).toEqual(JSON_OPERATION_NAMES.map(snake).sort());
    expect(pageId).toMatch(/^page_[a-z0-9]{26}$/);
    expect(lines).toContain(`create_page -> ${pageId}`);
    expect(lines).toContain('list_pages -> totalCount 1');
    expect(lines).toContainEqual(
      expect.stringMatching(/^get_page \(unknown id\) -> isError true: .*NOT_FOUND \(404\)/),
    );
    const page = await callTool(client, 'get_page', { pageId });
    expect(page).toMatchObject({ isError: false, structured: { pageId, name: 'From MCP', status: 'draft' } });
  });
});
