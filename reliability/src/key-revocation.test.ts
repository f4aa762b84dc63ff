import { afterAll, describe, expect, it } from 'vitest';
import { call, pool } from './lib/http.js';
import { postgresDatabase } from './lib/postgres.js';
import { baseEnv, runCli, type ServerProcess, startProcess } from './lib/server-process.js';

const TTL_S = 3;
/** Scheduling on a loaded 2-core machine: a poll may answer this much after the window closed. */
const SLACK_MS = 1_500;

describe('a revoked key across two server processes (PostgreSQL)', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it(`keys revoke: both processes refuse the key within AUTH_CACHE_TTL_S (${TTL_S} s)`, async (ctx) => {
    const database = await postgresDatabase();
    if ('skip' in database) {
      console.warn(`[reliability] key-revocation test skipped: ${database.skip}`);
      ctx.skip();
      return;
    }
    cleanups.push(database.dispose);
    const env = baseEnv({
      DATABASE_URL: database.url,
      WEBHOOKS_DISPATCHER: '0',
      AUTH_CACHE_TTL_S: String(TTL_S),
    });
    const tenant = `revoked-${Date.now()}`;
    const key = JSON.parse(await runCli(env, ['keys', 'create', '--tenant', tenant])) as {
      apiKey: string;
      keyId: string;
    };
    const servers: ServerProcess[] = [await startProcess(env), await startProcess(env)];
    cleanups.push(async () => {
      for (const server of servers) await server.stop();
    });
    const clients = servers.map((server) => pool(server.url, 1));
    cleanups.push(async () => {
      for (const client of clients) await client.close();
    });
    const get = (i: number) =>
      call(clients[i] as (typeof clients)[number], 'GET', '/v0/pages', { apiKey: key.apiKey });
    expect([(await get(0)).status, (await get(1)).status]).toEqual([200, 200]);

    const revoked = JSON.parse(await runCli(env, ['keys', 'revoke', key.keyId])) as { revokedAt: string };
    const revokedAt = Date.parse(revoked.revokedAt);
    // Each process answers 200 from its cache until its entry expires, then 401 for good.
    const refusedAfter = await Promise.all(
      [0, 1].map(async (i) => {
        for (;;) {
          const res = await get(i);
          if (res.status === 401) return Date.now() - revokedAt;
          expect(res.status).toBe(200);
        }
      }),
    );
    for (const ms of refusedAfter) expect(ms).toBeLessThanOrEqual(TTL_S * 1000 + SLACK_MS);
    expect([(await get(0)).status, (await get(1)).status]).toEqual([401, 401]);

    const [listed] = (await runCli(env, ['keys', 'list', '--tenant', tenant]))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(listed).toMatchObject({
      keyId: key.keyId,
      revokedAt: revoked.revokedAt,
      lastUsedAt: expect.any(String),
    });
    expect(JSON.stringify(listed)).not.toContain(key.apiKey.slice(12));
  });
});
