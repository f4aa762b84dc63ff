import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { openDatabase } from '@customer-api/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, pool, sleep } from './lib/http.js';
import { report } from './lib/profile.js';
import { startReceiver } from './lib/receiver.js';
import { baseEnv, createKey, pgliteDataDir, SERVER_MAIN, startProcess } from './lib/server-process.js';
import { query } from './lib/sql.js';
import { subscribe, versionTarget, waitDelivered } from './lib/webhook-load.js';

let dataDir: string;
let logs = '';
let apiKey: string;
const presented: string[] = [];
const signingSecrets: string[] = [];
let requests = 0;

/** A secret and the parts of it that would still give it away (the random part alone). */
function forms(secret: string): string[] {
  const random = secret.replace(/^(cak_|whsec_)/, '');
  return [secret, random, random.slice(0, 24)];
}

beforeAll(async () => {
  dataDir = (await pgliteDataDir('reliability-secrets-')).path;
  const env = baseEnv({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'debug',
    WEBHOOKS_ALLOW_INSECURE: '1',
    WEBHOOKS_RETRY_SCHEDULE: '1,1,1,1,1,2,2,2,2,2',
    WEBHOOKS_TIMEOUT_MS: '1000',
  });
  apiKey = await createKey(env, 'secrets');
  const receiver = await startReceiver();
  const server = await startProcess(env);
  const client = pool(server.url, 4);
  try {
    receiver.failWith = 500; // failed attempts are logged too
    const sub = await call(client, 'POST', '/v0/webhook_subscriptions', {
      apiKey,
      body: { url: receiver.url },
    });
    const { webhookSubscriptionId, signingSecret } = sub.body as {
      webhookSubscriptionId: string;
      signingSecret: string;
    };
    signingSecrets.push(signingSecret);
    const rotated = await call(
      client,
      'POST',
      `/v0/webhook_subscriptions/${webhookSubscriptionId}/rotate_secret`,
      { apiKey, body: {} },
    );
    signingSecrets.push((rotated.body as { signingSecret: string }).signingSecret);
    await subscribe(client, apiKey, receiver.url);
    const versions = await versionTarget(client, apiKey);
    const made: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      made.push(
        ((await call(client, 'POST', versions, { apiKey, body: {} })).body as { versionId: string })
          .versionId,
      );
    }
    for (const path of ['/v0/pages', '/v0/topics', '/v0/accounts', '/v0/webhook_subscriptions', '/v0/nope']) {
      await call(client, 'GET', path, { apiKey });
      const wrong = `cak_wrong${Math.random().toString(36).slice(2)}${'x'.repeat(20)}`;
      presented.push(wrong);
      await call(client, 'GET', path, { apiKey: wrong });
      await call(client, 'POST', '/v0/pages', { apiKey, body: { name: '' } }); // validation error
      requests += 3;
    }
    await sleep(1500);
    receiver.failWith = undefined;
    expect(await waitDelivered(receiver.versions, made, 20_000)).toEqual([]);
  } finally {
    await client.destroy();
    await receiver.close();
    expect(await server.stop()).toBe(0);
    logs = server.output();
  }
}, 120_000);
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('secrets never leak', () => {
  it('the captured debug logs hold no API key, presented key or signing secret', () => {
    // The capture is real: a log line for every request, with its id.
    expect(logs.match(/"msg":"incoming request"/g)?.length ?? 0).toBeGreaterThanOrEqual(requests);
    expect(logs).toMatch(/"reqId":"req_[0-9a-z]{26}"/);
    const leaks = [apiKey, ...presented, ...signingSecrets].flatMap(forms).filter((s) => logs.includes(s));
    report('secrets-in-logs', {
      logLines: logs.split('\n').length,
      requests,
      secretsChecked: 1 + presented.length + signingSecrets.length,
      leaks: leaks.length,
    });
    expect(leaks).toEqual([]);
  });

  it('the database holds API keys only as SHA-256 hashes, and signing secrets only encrypted', async () => {
    const database = await openDatabase({ dataDir });
    try {
      const tables = await query<{ table_name: string }>(
        database,
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`,
      );
      let dump = '';
      for (const { table_name } of tables) {
        const rows = await query<{ row: string }>(
          database,
          `SELECT row_to_json(t)::text AS row FROM "${table_name}" t`,
        );
        dump += rows.map((r) => r.row).join('\n');
      }
      expect(
        [apiKey, ...presented, ...signingSecrets].flatMap(forms).filter((s) => dump.includes(s)),
      ).toEqual([]);
      expect(dump).toMatch(/"secret_sealed":"v1\./);
      expect(dump).toContain(createHash('sha256').update(apiKey).digest('hex'));
    } finally {
      await database.close();
    }
  });

  it('keys are looked up by hash and the stored hash compared in constant time', async () => {
    // A timing measurement through HTTP cannot resolve a byte-wise comparison; the code path can be
    // checked: the presented key is hashed before any lookup, and the match is timingSafeEqual.
    const source = await readFile(join(dirname(SERVER_MAIN), 'tenants', 'tenants.service.js'), 'utf8');
    const authenticateHash = source.slice(source.indexOf('export async function authenticateHash'));
    expect(authenticateHash).toMatch(/timingSafeEqual\(/);
    expect(source).toMatch(/authenticateHash\(db, hashApiKey\(secret\)[,)]/);
  });
});
