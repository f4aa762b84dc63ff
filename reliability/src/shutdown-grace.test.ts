import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { call, pool } from './lib/http.js';
import { baseEnv, createKey, pgliteDataDir, startProcess } from './lib/server-process.js';
import { subscribe, versionTarget } from './lib/webhook-load.js';

const GRACE_MS = 1_500;

describe('SHUTDOWN_GRACE_MS', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('SIGTERM with a delivery that never ends: the process exits 1 after the grace, not before', async () => {
    // A receiver that takes every delivery and never answers.
    const held = createServer(() => {});
    held.listen(0, '127.0.0.1');
    await once(held, 'listening');
    const arrived = once(held, 'request');
    cleanups.push(async () => {
      held.closeAllConnections();
      held.close();
    });
    const dataDir = await pgliteDataDir('reliability-grace-');
    cleanups.push(dataDir.remove);
    const env = baseEnv({
      DATA_DIR: dataDir.path,
      WEBHOOKS_ALLOW_INSECURE: '1',
      WEBHOOKS_TIMEOUT_MS: '600000',
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
    });
    const apiKey = await createKey(env, 'grace');
    const server = await startProcess(env);
    cleanups.push(async () => {
      if (server.child.exitCode === null) await server.kill9();
    });
    const client = pool(server.url, 2);
    cleanups.push(() => client.close());
    await subscribe(client, apiKey, `http://127.0.0.1:${(held.address() as AddressInfo).port}/hook`);
    const path = await versionTarget(client, apiKey);
    expect((await call(client, 'POST', path, { apiKey, body: {} })).status).toBe(201);
    await arrived;

    const signalled = Date.now();
    server.child.kill('SIGTERM');
    const code = await server.exited;
    const took = Date.now() - signalled;
    expect(code).toBe(1);
    expect(took).toBeGreaterThanOrEqual(GRACE_MS);
    // The setting, not the 10 s default, decided; and the process said why it exited (a loaded
    // machine can take seconds to exit, so the log, not the clock, tells the two apart).
    const said = server
      .output()
      .split('\n')
      .filter((line) => line.includes('SHUTDOWN_GRACE_MS'))
      .map((line) => JSON.parse(line) as { level: number; graceMs: number });
    expect(said).toEqual([expect.objectContaining({ level: 50, graceMs: GRACE_MS })]);
  });
});
