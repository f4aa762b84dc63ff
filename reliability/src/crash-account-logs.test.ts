import { afterAll, describe, expect, it } from 'vitest';
import { accountLogLoad, type LoadOutcome, logBody } from './lib/account-log-load.js';
import { call, pool, readAll, sleep } from './lib/http.js';
import { postgresDatabase } from './lib/postgres.js';
import { PROFILE, report, sized } from './lib/profile.js';
import { baseEnv, createKey, pgliteDataDir, type ServerProcess, startProcess } from './lib/server-process.js';

const CONNECTIONS = 50;
const CYCLES = sized(2, 5);
const LOAD_MS = sized(1500, 6000);

interface Totals {
  tried: number;
  acked: number;
  kills: number;
  lost: number;
  duplicates: number;
}

/** One cycle: start, load with 50 connections, kill -9 mid-load; returns what the load saw. */
async function loadAndKill(env: Record<string, string>, apiKey: string, cycle: number): Promise<LoadOutcome> {
  const server = await startProcess(env);
  const client = pool(server.url, CONNECTIONS);
  let killed: ServerProcess['exited'] | undefined;
  const until = (async () => {
    await sleep(LOAD_MS);
    killed = server.kill9();
    await killed;
  })();
  const outcome = await accountLogLoad(client, apiKey, {
    connections: CONNECTIONS,
    prefix: `c${cycle}`,
    until,
  });
  expect(await killed).toBe('SIGKILL');
  await client.destroy();
  return outcome;
}

/**
 * After a restart: every acknowledged entry is listed, no key has two entries, and resending any
 * tried key returns the acknowledged entry (or creates it once if it was never acknowledged).
 */
async function verify(server: ServerProcess, apiKey: string, outcome: LoadOutcome, totals: Totals) {
  const client = pool(server.url, 10);
  try {
    const accountId = outcome.accountId as string;
    const listed = async () =>
      readAll<{ accountLogId: string; idempotencyKey?: string }>(
        client,
        `/v0/accounts/${accountId}/activity`,
        apiKey,
      );
    const byKey = new Map<string, string[]>();
    for (const item of await listed()) {
      if (item.idempotencyKey)
        byKey.set(item.idempotencyKey, [...(byKey.get(item.idempotencyKey) ?? []), item.accountLogId]);
    }
    for (const [key, id] of outcome.acked) {
      if (!byKey.get(key)?.includes(id)) totals.lost += 1;
    }
    for (const ids of byKey.values()) if (ids.length > 1) totals.duplicates += 1;
    for (const key of outcome.tried) {
      const res = await call(client, 'POST', '/v0/account_logs', { apiKey, body: logBody(key) });
      expect([200, 201], res.text).toContain(res.status);
      const acked = outcome.acked.get(key);
      if (acked) {
        expect(res.status).toBe(200);
        expect((res.body as { accountLogId: string }).accountLogId).toBe(acked);
      }
    }
    const again = await listed();
    const keys = again.map((i) => i.idempotencyKey).filter((k) => k !== undefined);
    expect(new Set(keys).size).toBe(keys.length);
  } finally {
    await client.destroy();
  }
}

async function crashSuite(name: string, env: Record<string, string>): Promise<void> {
  const apiKey = await createKey(env, `crash-${Date.now()}`);
  const totals: Totals = { tried: 0, acked: 0, kills: 0, lost: 0, duplicates: 0 };
  for (let cycle = 0; cycle < CYCLES; cycle += 1) {
    const outcome = await loadAndKill(env, apiKey, cycle);
    totals.kills += 1;
    expect(outcome.unexpected).toEqual([]);
    expect(outcome.acked.size).toBeGreaterThan(0);
    totals.tried += outcome.tried.size;
    totals.acked += outcome.acked.size;
    const restarted = await startProcess(env);
    try {
      expect((await fetch(`${restarted.url}/readyz`)).status).toBe(200);
      await verify(restarted, apiKey, outcome, totals);
    } finally {
      expect(await restarted.stop()).toBe(0);
    }
  }
  report(`crash-account-logs-${name}`, {
    connections: CONNECTIONS,
    killCycles: totals.kills,
    keysTried: totals.tried,
    acknowledged: totals.acked,
    lost: totals.lost,
    duplicateKeys: totals.duplicates,
  });
  expect(totals.lost).toBe(0);
  expect(totals.duplicates).toBe(0);
}

describe(`kill -9 during a ${CONNECTIONS}-connection account-log load (${PROFILE})`, () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it('PGlite: every acknowledged entry survives, no key has two entries, clean restart', async () => {
    const dataDir = await pgliteDataDir('reliability-pglite-');
    cleanups.push(dataDir.remove);
    await crashSuite('pglite', baseEnv({ DATA_DIR: dataDir.path }));
  });

  it('PostgreSQL: every acknowledged entry survives, no key has two entries, clean restart', async (ctx) => {
    const database = await postgresDatabase();
    if ('skip' in database) {
      console.warn(`[reliability] PostgreSQL crash test skipped: ${database.skip}`);
      ctx.skip();
      return;
    }
    cleanups.push(database.dispose);
    await crashSuite('postgres', baseEnv({ DATABASE_URL: database.url }));
  });
});
