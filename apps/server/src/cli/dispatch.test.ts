import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadTestSettings } from '../config.js';
import { TEST_SECRETS_KEY, useTestApp } from '../test/test-app.js';
import { startReceiver, type TestReceiver } from '../test/webhook-receiver.js';
import { steppingClock, WEBHOOK_TEST_ENV, webhookHelpers } from '../test/webhooks.js';

const mainJs = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const settings = loadTestSettings();

// Separate processes need a database they can share: PostgreSQL (PGlite is one process's).
describe.skipIf(!existsSync(mainJs) || !settings.databaseUrl)('customer-api dispatch (built CLI)', () => {
  const time = steppingClock();
  const t = useTestApp({ clock: time.clock, env: WEBHOOK_TEST_ENV });
  const h = webhookHelpers(t, time.clock);
  let receiver: TestReceiver;
  let child: ChildProcess | undefined;

  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    child?.kill('SIGKILL');
    await h.stopAll();
    await receiver.close();
  });

  // How long the started CLI may take to deliver its first attempt: 15 s was not enough once on a
  // loaded machine (CI's Node 24 pass, other suites running beside it), where starting a process
  // and loading its modules is slow; a working dispatcher delivers in about 2 s here.
  const FIRST_DELIVERY_MS = 60_000;

  const dispatch = (env: Record<string, string> = {}) => {
    const proc = spawn(process.execPath, [mainJs, 'dispatch'], {
      // vitest sets BASE_URL=/ (a Vite convention) in process.env: give the child a real one.
      env: {
        ...process.env,
        ...WEBHOOK_TEST_ENV,
        DATABASE_URL: t.config.databaseUrl,
        BASE_URL: 'http://127.0.0.1:3000',
        // The key the test app sealed the subscription's secret with.
        SECRETS_ENCRYPTION_KEYS: TEST_SECRETS_KEY,
        LOG_LEVEL: 'silent',
        ...env,
      },
      stdio: 'ignore',
    });
    child = proc;
    return { proc, exited: new Promise<number | null>((resolve) => proc.once('exit', resolve)) };
  };

  it('delivers on its own and exits 0 on SIGTERM after finishing the delivery in flight', async () => {
    const sub = await h.subscribe(receiver.url);
    await h.version();
    receiver.script({ delayMs: 150 });
    // Not the 1 s send timeout of the other webhook tests: in CI's Node 24 pass, with other suites
    // running beside it, the new process's first POST took longer than that and was retried.
    const { proc, exited } = dispatch({ WEBHOOKS_TIMEOUT_MS: '30000' });
    await receiver.waitFor(1, FIRST_DELIVERY_MS);
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(await h.deliveries(sub.webhookSubscriptionId)).toEqual([
      expect.objectContaining({ status: 'succeeded', attempt: 1 }),
    ]);
  });

  it('loses nothing when the process is killed (SIGKILL) mid-delivery: the attempt is sent again', async () => {
    const sub = await h.subscribe(receiver.url);
    await h.version();
    receiver.script({ hang: true });
    const { proc, exited } = dispatch();
    await receiver.waitFor(1, FIRST_DELIVERY_MS);
    proc.kill('SIGKILL');
    await exited;
    const [pending] = await h.deliveries(sub.webhookSubscriptionId);
    expect(pending).toMatchObject({ status: 'pending', attempt: 1 });
    // The dead process's lease runs out (send timeout + 60 s); then another dispatcher takes over.
    time.advance(t.config.webhooks.timeoutMs + 60_000 + 1);
    await h.dispatcher().runOnce();
    expect(receiver.received.map((r) => r.eventId)).toEqual([pending?.eventId, pending?.eventId]);
    expect(await h.deliveries(sub.webhookSubscriptionId)).toEqual([
      expect.objectContaining({ deliveryId: pending?.deliveryId, status: 'succeeded' }),
    ]);
  });
});
