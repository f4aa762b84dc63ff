import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { emptyProject } from './consumer.js';
import { run, runPnpm } from './run.js';
import type { Registry } from './verdaccio.js';

/**
 * What a first user writes: list pages with the client (responses validated against the
 * contract), walk them, and catch a `NotFoundError` for a page that does not exist. Checks the
 * client reports the version it was published as.
 */
const USE = `import assert from 'node:assert/strict';
import { CLIENT_VERSION, createClient, NotFoundError } from '@customer-api/client';
import { OPERATION_NAMES } from '@customer-api/contract';
const [url, apiKey, version] = process.argv.slice(2);
assert.equal(CLIENT_VERSION, version, 'the client does not report the version it was published as');
assert.ok(OPERATION_NAMES.includes('listPages'));
const client = createClient({ baseUrl: url, apiKey, maxRetries: 0, validateResponses: true });
const page = await client.listPages({ query: { limit: 5 } });
assert.ok(page.items.length > 0, 'the seeded pages are not listed');
let walked = 0;
for await (const _ of client.iterate('listPages', { query: { limit: 2 } })) walked += 1;
assert.ok(walked >= page.items.length);
await assert.rejects(
  client.getPage({ params: { page_id: 'page_${'0'.repeat(26)}' } }),
  (err) => err instanceof NotFoundError && err.code === 'NOT_FOUND' && typeof err.requestId === 'string',
);
await client.close();
console.log(\`listed \${page.items.length} page(s), walked \${walked}, NotFoundError caught\`);
`;

/** The environment of an install from the rehearsal registry: its npm cache too, so nothing comes from earlier runs. */
function registryEnv(registry: Registry, cache: string): Record<string, string> {
  return { npm_config_registry: registry.url, npm_config_cache: cache, npm_config_provenance: 'false' };
}

/** Which client installs a consumer project. */
export type Installer = 'npm' | 'pnpm';

/**
 * A fresh consumer project installs the client, the contract and zod from the registry with
 * `installer` and runs {@link USE} against the server at `url`; returns what it printed.
 */
export async function consumeFromRegistry(
  dir: string,
  installer: Installer,
  registry: Registry,
  server: { url: string; apiKey: string },
  version: string,
): Promise<string> {
  const project = emptyProject(dir);
  writeFileSync(join(project, '.npmrc'), `registry=${registry.url}\n`);
  const packages = [`@customer-api/client@${version}`, `@customer-api/contract@${version}`, 'zod@^4.1.0'];
  const env = registryEnv(registry, join(dir, '..', 'npm-cache'));
  if (installer === 'npm') {
    await run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--loglevel=error', ...packages],
      project,
      300_000,
      env,
    );
  } else {
    await runPnpm(['add', ...packages], project, env);
  }
  writeFileSync(join(project, 'use.mjs'), USE);
  return (await run(process.execPath, ['use.mjs', server.url, server.apiKey, version], project)).trim();
}

interface JsonRpcMessage {
  id?: number;
  result?: {
    serverInfo?: { name: string; version: string };
    tools?: Array<{ name: string }>;
    isError?: boolean;
    structuredContent?: { items?: unknown[] };
  };
  error?: unknown;
}

/**
 * `npx -y @customer-api/mcp@<version>` from the registry in an empty directory, spoken to over
 * stdio as an MCP client does: `initialize`, `tools/list`, and one `list_pages` call against the
 * server. Returns the tool count.
 */
export async function npxMcp(
  dir: string,
  registry: Registry,
  server: { url: string; apiKey: string },
  version: string,
): Promise<number> {
  const project = emptyProject(dir);
  const child = spawn('npx', ['-y', `@customer-api/mcp@${version}`], {
    cwd: project,
    env: {
      ...process.env,
      ...registryEnv(registry, join(dir, '..', 'npm-cache')),
      CUSTOMER_API_KEY: server.apiKey,
      CUSTOMER_API_BASE_URL: server.url,
      MCP_LOG_LEVEL: 'warn',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-20_000);
  });
  const pending = new Map<number, (message: JsonRpcMessage) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as JsonRpcMessage;
    if (message.id !== undefined) pending.get(message.id)?.(message);
  });
  const exited = new Promise<never>((_, reject) =>
    child.on('exit', (code, signal) =>
      reject(new Error(`npx @customer-api/mcp exited (${code ?? signal}):\n${stderr}`)),
    ),
  );
  let nextId = 0;
  const request = (method: string, params: unknown): Promise<JsonRpcMessage> => {
    const id = ++nextId;
    const answered = new Promise<JsonRpcMessage>((resolve) => pending.set(id, resolve));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      // The first request waits for npx to install the package and its dependencies.
      timer = setTimeout(() => reject(new Error(`${method}: no answer within 300 s:\n${stderr}`)), 300_000);
    });
    return Promise.race([answered, exited, timeout]).finally(() => clearTimeout(timer));
  };
  try {
    const init = await request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'release-check', version: '0.0.0' },
    });
    if (init.result?.serverInfo?.version !== version) {
      throw new Error(`initialize answered ${JSON.stringify(init)}; expected the server at ${version}`);
    }
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const listed = await request('tools/list', {});
    const names = listed.result?.tools?.map((t) => t.name) ?? [];
    if (!names.includes('list_pages')) throw new Error(`tools/list answered ${JSON.stringify(listed)}`);
    const called = await request('tools/call', { name: 'list_pages', arguments: { limit: 1 } });
    if (called.result?.isError || called.result?.structuredContent?.items?.length !== 1) {
      throw new Error(`list_pages answered ${JSON.stringify(called)}`);
    }
    return names.length;
  } finally {
    exited.catch(() => {});
    child.stdin.end();
    if (child.exitCode === null) child.kill('SIGTERM');
  }
}
