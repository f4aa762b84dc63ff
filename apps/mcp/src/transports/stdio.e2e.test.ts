import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { DEFAULT_TOOLSET } from '../tools/select.js';

const api = inject('api');
/** The built CLI, exactly as `customer-api-mcp` runs it (the test task builds first). */
const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function connect(args: string[] = [], env: Record<string, string> = {}) {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run pnpm --filter @customer-api/mcp build`);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, ...args],
    env: {
      PATH: process.env.PATH ?? '',
      CUSTOMER_API_KEY: api.apiKey,
      CUSTOMER_API_BASE_URL: api.baseUrl,
      MCP_TOOLSETS: 'all',
      ...env,
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'stdio-e2e', version: '1.0.0' });
  await client.connect(transport);
  open.push(client);
  return { client, stderr: () => stderr, transport };
}

describe('customer-api-mcp over stdio against the real server', () => {
  // The assistant script over stdio, with its JSON log lines on stderr, and --read-only run for both
  // protocol eras in eras.test.ts.
  it('shows a read-only key no write tool, asking the API its scopes (X-OAuth-Scopes)', async () => {
    const { client } = await connect([], { CUSTOMER_API_KEY: api.readOnlyKey });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('list_pages');
    expect(names.filter((n) => /^(create|update|delete|archive|restore|publish)_/.test(n))).toEqual([]);
    await expect(client.callTool({ name: 'create_topic', arguments: { title: 'no' } })).rejects.toThrow(
      /Unknown tool create_topic: .*write scope/,
    );
  });

  it('serves the default toolset without switches, and every flag from its environment variable', async () => {
    const { client } = await connect([], { MCP_TOOLSETS: '' });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(DEFAULT_TOOLSET);
    const fromEnv = await connect([], { MCP_TOOLSETS: 'topics', MCP_READ_ONLY: '1' });
    expect((await fromEnv.client.listTools()).tools.map((t) => t.name)).toEqual(['list_topics', 'get_topic']);
  });

  it('exposes only the chosen tools with --toolsets and --tools', async () => {
    const { client } = await connect([
      '--toolsets',
      'pages,accounts',
      '--tools',
      'list_pages,get_account,create_topic',
    ]);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['list_pages', 'get_account']);
  });

  it('refuses to start without an API key, saying why on stderr and nothing on stdout', () => {
    const run = spawnSync(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Set CUSTOMER_API_KEY');
  });

  it('exits by itself, quietly, when the client closes stdin', async () => {
    const env = {
      PATH: process.env.PATH ?? '',
      CUSTOMER_API_KEY: api.apiKey,
      CUSTOMER_API_BASE_URL: api.baseUrl,
    };
    const child = spawn(process.execPath, [MAIN], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise((resolve) => child.stderr.once('data', resolve));
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    expect(await exited).toBe(0);
    clearTimeout(timer);
    // Only the JSON log lines: no stack traces (once, hundreds of lines of RangeError).
    const lines = stderr.trim().split('\n');
    expect(stderr).not.toContain('RangeError');
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(['serving MCP on stdio']);
  });
});
