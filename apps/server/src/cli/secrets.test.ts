import { verifyWebhook } from '@customer-api/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../lib/ids.js';
import { openSecretBox } from '../secrets/keyring.js';
import { generateEncryptionKey, parseEncryptionKeys, SecretBox } from '../secrets/secret-box.js';
import { type OpenedApp, useDurableDatabase } from '../test/secrets.js';
import type { TestTenant } from '../test/seed.js';
import { query } from '../test/sql.js';
import { startReceiver, type TestReceiver } from '../test/webhook-receiver.js';
import { runCli } from './cli.js';

const OLD = generateEncryptionKey();
const NEW = generateEncryptionKey();
const idOf = (key: string) => new SecretBox(parseEncryptionKeys(key)).currentKeyId;

const d = useDurableDatabase();

async function run(keys: string | undefined, ...args: string[]) {
  const env: Record<string, string> = { NODE_ENV: 'test', DATA_DIR: 'memory://', LOG_LEVEL: 'silent' };
  if (keys !== undefined) env.SECRETS_ENCRYPTION_KEYS = keys;
  let err = '';
  const code = await runCli(args, { env, out: () => {}, err: (text) => (err += text) });
  return { code, err };
}

describe('start-up with SECRETS_ENCRYPTION_KEYS', () => {
  it.each([
    ['a key that is not base64 of 32 bytes', 'c2hvcnQta2V5LXNob3J0LWtleQ=='],
    ['an empty entry between two keys', `${OLD},,${NEW}`],
    ['the same key twice', `${OLD},${OLD}`],
    ['a named key (ids are derived, not given)', `k1:${OLD}`],
  ])('stops with a message naming the variable, never the value, for %s', async (_, value) => {
    const { code, err } = await run(value, 'serve');
    expect(code).toBe(1);
    expect(err).toContain('SECRETS_ENCRYPTION_KEYS');
    expect(err).not.toContain(OLD);
    expect(err).not.toContain('c2hvcnQta2V5');
  });

  it('stops a production server on PostgreSQL that has no key, saying how to make one', async () => {
    let err = '';
    const code = await runCli(['serve'], {
      env: { NODE_ENV: 'production', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
      out: () => {},
      err: (text) => (err += text),
    });
    expect(code).toBe(1);
    expect(err).toMatch(/SECRETS_ENCRYPTION_KEYS: required with NODE_ENV=production and DATABASE_URL/);
    expect(err).toContain('openssl rand -base64 32');
  });
});

describe('customer-api secrets rotate', () => {
  let receiver: TestReceiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  /** Creates a subscription and rotates its secret, both with an Idempotency-Key; returns the texts sent. */
  async function subscribeAndRotate(opened: OpenedApp, tenant: TestTenant) {
    const created = await opened.app.inject({
      method: 'POST',
      url: '/v0/webhook_subscriptions',
      headers: { ...tenant.auth(), 'idempotency-key': `create-${tenant.tenantId}` },
      payload: { url: receiver.url },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().webhookSubscriptionId as string;
    const rotated = await opened.app.inject({
      method: 'POST',
      url: `/v0/webhook_subscriptions/${id}/rotate_secret`,
      headers: { ...tenant.auth(), 'idempotency-key': `rotate-${tenant.tenantId}` },
      payload: {},
    });
    expect(rotated.statusCode, rotated.body).toBe(200);
    return { id, created: created.body, rotated: rotated.body };
  }

  it('re-encrypts every secret under the first key, reruns with nothing to do, and lets the old key go', async () => {
    const before = await d.open(OLD);
    const tenant = await before.seed.tenant();
    let sent: Awaited<ReturnType<typeof subscribeAndRotate>>;
    try {
      sent = await subscribeAndRotate(before, tenant);
    } finally {
      await before.close();
    }

    // Without the key that sealed them, nothing is lost: the command refuses and names the key.
    const early = await d.cli(NEW, 'secrets', 'rotate');
    expect(early.code).toBe(1);
    expect(early.err).toContain(`sealed with key ${idOf(OLD)}`);

    const first = await d.cli(`${NEW},${OLD}`, 'secrets', 'rotate');
    expect(first.code, first.err).toBe(0);
    expect(JSON.parse(first.out)).toEqual({
      keyId: idOf(NEW),
      subscriptions: 1,
      keptResponses: 2,
      skipped: 0,
    });
    const again = await d.cli(`${NEW},${OLD}`, 'secrets', 'rotate');
    expect(JSON.parse(again.out)).toEqual({
      keyId: idOf(NEW),
      subscriptions: 0,
      keptResponses: 0,
      skipped: 0,
    });

    const after = await d.open(NEW);
    try {
      // Replays answer the very bytes first sent, secret included.
      for (const [url, key, body] of [
        ['/v0/webhook_subscriptions', `create-${tenant.tenantId}`, sent.created],
        [`/v0/webhook_subscriptions/${sent.id}/rotate_secret`, `rotate-${tenant.tenantId}`, sent.rotated],
      ] as const) {
        const replay = await after.app.inject({
          method: 'POST',
          url,
          headers: { ...tenant.auth(), 'idempotency-key': key },
          payload: url.endsWith('rotate_secret') ? {} : { url: receiver.url },
        });
        expect(replay.headers['idempotent-replayed']).toBe('true');
        expect(replay.body).toBe(body);
      }
      // Deliveries are signed with the secrets the API handed out, under the new key alone.
      await after.deliverOneEvent(tenant);
      const [got] = receiver.received;
      if (!got) throw new Error('nothing delivered');
      const headers = got.headers as Record<string, string>;
      const current = JSON.parse(sent.rotated).signingSecret as string;
      const replaced = JSON.parse(sent.created).signingSecret as string;
      expect(verifyWebhook({ secret: current, rawBody: got.body, headers }).payload.type).toBe(
        'page.version.created',
      );
      expect(verifyWebhook({ secret: replaced, rawBody: got.body, headers }).payload.type).toBe(
        'page.version.created',
      );
    } finally {
      await after.close();
    }
  });

  it('seals secrets stored in plaintext before the upgrade, on migrate, keeping them valid', async () => {
    const opened = await d.open(OLD);
    const tenant = await opened.seed.tenant();
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const id = newId('whsub');
    const body = JSON.stringify({ webhookSubscriptionId: id, signingSecret: secret });
    try {
      // Rows as an older server wrote them: the secret readable, in the subscription and in a kept response.
      await query(
        opened.database.db,
        `INSERT INTO webhook_subscriptions (id, tenant_id, url, event_types, status, secret, created_at, updated_at)
         VALUES ($1, $2, $3, '{page.version.*}', 'active', $4, now(), now())`,
        [id, tenant.tenantId, receiver.url, secret],
      );
      await query(
        opened.database.db,
        `INSERT INTO idempotency_keys (tenant_id, key, fingerprint, status_code, body, created_at, expires_at)
         VALUES ($1, 'legacy', 'f', 201, $2, now(), now() + interval '1 day')`,
        [tenant.tenantId, body],
      );
      // As the database is right after the upgrade: nothing sealed yet.
      await query(opened.database.db, `DELETE FROM server_settings WHERE name = 'kept_secrets_sealed'`);
    } finally {
      await opened.close();
    }
    expect((await d.cli(OLD, 'migrate')).code).toBe(0);

    const reopened = await d.open(OLD);
    try {
      const [row] = await query<{ secret: string | null; secret_sealed: string }>(
        reopened.database.db,
        'SELECT secret, secret_sealed FROM webhook_subscriptions WHERE id = $1',
        [id],
      );
      expect(row?.secret).toBeNull();
      expect(openSecretBox(reopened.config).open(row?.secret_sealed ?? '')).toBe(secret);
      const [kept] = await query<{ body: string; sealed_secret: string }>(
        reopened.database.db,
        `SELECT body, sealed_secret FROM idempotency_keys WHERE tenant_id = $1 AND key = 'legacy'`,
        [tenant.tenantId],
      );
      expect(kept?.body).not.toContain(secret.slice(6));
      expect(openSecretBox(reopened.config).open(kept?.sealed_secret ?? '')).toBe(secret);
    } finally {
      await reopened.close();
    }
  });
});
