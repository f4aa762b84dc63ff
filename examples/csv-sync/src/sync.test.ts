import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type CustomerApiClient, createClient } from '@customer-api/client';
import { type RunningServer, startServer } from '@customer-api/example-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const sample = fileURLToPath(new URL('../accounts.csv', import.meta.url));

describe('csv-sync against a real server', () => {
  let server: RunningServer;
  let client: CustomerApiClient;
  let dir: string;
  const sync = async (file: string) => {
    const env = { ...process.env, CUSTOMER_API_KEY: server.apiKey, CUSTOMER_API_BASE_URL: server.baseUrl };
    const { stdout, stderr } = await run(process.execPath, [main, file], { env });
    return { result: JSON.parse(stdout), stderr };
  };

  beforeAll(async () => {
    server = await startServer();
    client = createClient({ baseUrl: server.baseUrl, apiKey: server.apiKey });
    dir = await mkdtemp(join(tmpdir(), 'csv-sync-'));
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates one account and one log per row; a second run replays and creates nothing', async () => {
    const first = await sync(sample);
    expect(first.result).toEqual({ rows: 5, created: 5, replayed: 0 });
    expect(first.stderr).toMatch(/100% \| 5\/5/);
    const second = await sync(sample);
    expect(second.result).toEqual({ rows: 5, created: 0, replayed: 5 });

    const accounts = await client.listAccounts({ query: { limit: 100 } });
    expect(accounts.totalCount).toBe(5);
    // The URL-shaped domain of the sample was canonicalised.
    expect(accounts.items.map((a) => a.domain).sort()).toEqual([
      'acme.example',
      'globex.example',
      'hooli.example',
      'initech.example',
      'umbrella.example',
    ]);
    const acme = accounts.items.find((a) => a.domain === 'acme.example');
    const activity = await client.listAccountActivity({ params: { account_id: acme?.accountId ?? '' } });
    expect(activity.totalCount).toBe(1);
  });

  it('syncs a larger file, and an edited row becomes a new entry', async () => {
    const lines = ['domain,name,plan'];
    for (let i = 0; i < 150; i++) lines.push(`bulk-${i}.example,Bulk ${i},starter`);
    const file = join(dir, 'bulk.csv');
    await writeFile(file, `${lines.join('\n')}\n`);
    expect((await sync(file)).result).toEqual({ rows: 150, created: 150, replayed: 0 });
    lines[1] = 'bulk-0.example,Bulk 0,enterprise';
    await writeFile(file, `${lines.join('\n')}\n`);
    expect((await sync(file)).result).toEqual({ rows: 150, created: 1, replayed: 149 });
    expect((await client.listAccounts({ query: { limit: 1 } })).totalCount).toBe(155);
  });
});
