import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { JSON_OPERATION_NAMES } from '@customer-api/contract';
import { describe, expect, inject, it } from 'vitest';
import { useHttpServer } from './test/http-server.js';

const api = inject('api');
const run = promisify(execFile);
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
/** The official inspector CLI, v1 line (runs on Node 20 too; the 2.x inspector's --strict run is inspector-strict.e2e.test.ts). */
const INSPECTOR = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/package.json')),
  'build/cli.js',
);

/**
 * Runs `mcp-inspector-cli --cli`. The working directory is `dist/`: inspector-cli 1.0.3 checks
 * `../package.json` against the working directory but imports it relative to itself, so it
 * needs a parent directory holding a package.json.
 */
async function inspector(args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [INSPECTOR, '--cli', ...args], {
    cwd: DIST,
    timeout: 90_000,
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

const stdioTarget = () => [
  process.execPath,
  'main.js',
  '-e',
  `CUSTOMER_API_KEY=${api.apiKey}`,
  '-e',
  `CUSTOMER_API_BASE_URL=${api.baseUrl}`,
  '-e',
  'MCP_TOOLSETS=all',
];

describe('the MCP inspector CLI', () => {
  const http = useHttpServer();

  it('lists every tool of customer-api-mcp over stdio', async () => {
    const result = await inspector([...stdioTarget(), '--method', 'tools/list']);
    const tools = result.tools as { name: string; outputSchema?: unknown }[];
    expect(tools).toHaveLength(JSON_OPERATION_NAMES.length);
    expect(tools.every((t) => t.outputSchema)).toBe(true);
  });

  it('calls a tool over stdio', async () => {
    const result = await inspector([
      ...stdioTarget(),
      '--method',
      'tools/call',
      '--tool-name',
      'list_pages',
      '--tool-arg',
      'limit=1',
    ]);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      items: expect.any(Array),
      totalCount: expect.any(Number),
    });
  });

  // Once on a loaded CI machine (two test suites on two cores) the inspector's connection to the
  // server timed out after undici's 10 s connect timeout ("fetch failed"): one retry.
  it('calls a tool over Streamable HTTP with the key in a header', { retry: 1 }, async () => {
    const result = await inspector([
      http.url,
      '--transport',
      'http',
      '--header',
      `x-api-key: ${api.apiKey}`,
      '--method',
      'tools/call',
      '--tool-name',
      'get_page',
      '--tool-arg',
      'pageId=page_missing',
    ]);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('NOT_FOUND');
  });
});
