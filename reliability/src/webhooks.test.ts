import { afterAll, describe, expect, it } from 'vitest';
import { pool, sleep } from './lib/http.js';
import { postgresDatabase } from './lib/postgres.js';
import { PROFILE, report, sized } from './lib/profile.js';
import { type Receiver, startReceiver } from './lib/receiver.js';
import { baseEnv, createKey, pgliteDataDir, startProcess } from './lib/server-process.js';
import { subscribe, versionLoad, versionTarget, waitDelivered } from './lib/webhook-load.js';

/**
 * How long a claimed attempt stays leased. The full run keeps the default (send timeout + 60 s);
 * CI takes 10 s: the killed dispatcher's attempts must still wait out a lease ten times the send
 * timeout before they are sent again, without a minute of idle waiting per kill test.
 */
const LEASE_MS = sized(10_000, 1000 + 60_000);
/** Short retries and timeouts; loopback http allowed (the receiver is local). */
const WEBHOOK_ENV = {
  WEBHOOKS_ALLOW_INSECURE: '1',
  WEBHOOKS_RETRY_SCHEDULE: '1,1,1,1,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2',
  WEBHOOKS_TIMEOUT_MS: '1000',
  WEBHOOKS_LEASE_MS: String(LEASE_MS),
};
const LOAD_MS = sized(2000, 8000);
/** An attempt leased by a killed dispatcher is re-sent after its lease, then delivered. */
const LEASE_WAIT_MS = LEASE_MS + 30_000;
const CYCLES = sized(1, 3);

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function tempDataDir(): Promise<string> {
  const dir = await pgliteDataDir('reliability-webhooks-');
  cleanups.push(dir.remove);
  return dir.path;
}

async function withReceiver(): Promise<Receiver> {
  const receiver = await startReceiver();
  cleanups.push(() => receiver.close());
  return receiver;
}

describe.concurrent(`webhook delivery survives crashes and outages (${PROFILE})`, () => {
  it('server with its built-in dispatcher killed -9 under load (PGlite): every event delivered', async () => {
    const receiver = await withReceiver();
    const env = baseEnv({ ...WEBHOOK_ENV, DATA_DIR: await tempDataDir() });
    const apiKey = await createKey(env, 'webhooks-kill');
    const acked: string[] = [];
    for (let cycle = 0; cycle < CYCLES; cycle += 1) {
      const server = await startProcess(env);
      const client = pool(server.url, 8);
      if (cycle === 0) await subscribe(client, apiKey, receiver.url);
      const path = await versionTarget(client, apiKey);
      const kill = sleep(LOAD_MS).then(() => server.kill9());
      const load = await versionLoad(client, apiKey, path, { connections: 8, until: kill });
      expect(load.unexpected).toEqual([]);
      acked.push(...load.acked);
      await client.destroy();
    }
    const restarted = await startProcess(env);
    cleanups.push(async () => void (await restarted.stop()));
    const missing = await waitDelivered(receiver.versions, acked, LEASE_WAIT_MS);
    report('webhooks-server-kill9-pglite', {
      events: acked.length,
      kills: CYCLES,
      deliveries: receiver.requests,
      lost: missing.length,
    });
    expect(missing).toEqual([]);
  });

  it('dispatcher process (`customer-api dispatch`) killed -9 while delivering (PostgreSQL): every event delivered', async (ctx) => {
    const database = await postgresDatabase();
    if ('skip' in database) {
      console.warn(`[reliability] dispatcher crash test skipped: ${database.skip}`);
      ctx.skip();
      return;
    }
    cleanups.push(database.dispose);
    const receiver = await withReceiver();
    const env = baseEnv({ ...WEBHOOK_ENV, DATABASE_URL: database.url, WEBHOOKS_DISPATCHER: '0' });
    const apiKey = await createKey(env, 'webhooks-dispatch');
    const server = await startProcess(env);
    cleanups.push(async () => void (await server.stop()));
    const client = pool(server.url, 8);
    cleanups.push(() => client.destroy());
    await subscribe(client, apiKey, receiver.url);
    const path = await versionTarget(client, apiKey);
    const done = sleep(LOAD_MS * (CYCLES + 1));
    const loading = versionLoad(client, apiKey, path, { connections: 8, until: done });
    for (let cycle = 0; cycle < CYCLES; cycle += 1) {
      const dispatcher = await startProcess(env, 'dispatch');
      await sleep(LOAD_MS);
      expect(await dispatcher.kill9()).toBe('SIGKILL');
    }
    const load = await loading;
    expect(load.unexpected).toEqual([]);
    const dispatcher = await startProcess(env, 'dispatch');
    cleanups.push(async () => void (await dispatcher.stop()));
    const missing = await waitDelivered(receiver.versions, load.acked, LEASE_WAIT_MS);
    report('webhooks-dispatcher-kill9-postgres', {
      events: load.acked.length,
      kills: CYCLES,
      deliveries: receiver.requests,
      lost: missing.length,
    });
    expect(missing).toEqual([]);
  });

  it('receiver failing, then unreachable, for a while: deliveries resume and complete', async () => {
    const receiver = await withReceiver();
    const env = baseEnv({ ...WEBHOOK_ENV, DATA_DIR: await tempDataDir() });
    const apiKey = await createKey(env, 'webhooks-outage');
    const server = await startProcess(env);
    cleanups.push(async () => void (await server.stop()));
    const client = pool(server.url, 4);
    cleanups.push(() => client.destroy());
    await subscribe(client, apiKey, receiver.url);
    const path = await versionTarget(client, apiKey);
    const outageMs = sized(6000, 20_000);
    const loading = versionLoad(client, apiKey, path, {
      connections: 4,
      until: sleep(outageMs + 2000),
      pauseMs: 20,
    });
    await sleep(1000);
    receiver.failWith = 503;
    await sleep(outageMs / 2);
    receiver.failWith = undefined;
    await receiver.down();
    await sleep(outageMs / 2);
    await receiver.up();
    const load = await loading;
    expect(load.unexpected).toEqual([]);
    const missing = await waitDelivered(receiver.versions, load.acked, 60_000);
    report('webhooks-receiver-outage', {
      events: load.acked.length,
      outageMs,
      deliveries: receiver.requests,
      lost: missing.length,
    });
    expect(missing).toEqual([]);
  });
});
