import { execFile } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadTestSettings } from '../config.js';
import { useDurableDatabase } from '../test/secrets.js';
import { startReceiver } from '../test/webhook-receiver.js';
import { KEY_FILE_NAME } from './keyring.js';

const run = promisify(execFile);
const d = useDurableDatabase();

/** Every secret handed out or presented while the database was in use. */
const signingSecrets: string[] = [];
const apiKeys: string[] = [];
let keptResponses = 0;
/** The first response to `create-1` and the key that sent it. */
let firstCreate: { body: string; apiKey: string; url: string } | undefined;

/** A secret and the parts that would still give it away: its random part, and a long piece of it. */
function forms(secret: string): string[] {
  const random = secret.replace(/^(cak_|whsec_)/, '');
  return [secret, random, random.slice(0, 24)];
}

/** Every file of a directory, recursively, as one latin1 string (bytes kept one to one). */
async function filesOf(dir: string): Promise<string> {
  const parts: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) parts.push((await readFile(join(entry.parentPath, entry.name))).toString('latin1'));
  }
  return parts.join('\n');
}

/** What a backup of the database holds: `pg_dump`'s output on PostgreSQL, the data directory's files on PGlite. */
async function dump(): Promise<string> {
  if (d.url) return (await run('pg_dump', ['--no-owner', d.url], { maxBuffer: 256 * 1024 * 1024 })).stdout;
  return filesOf(d.dataDir ?? '');
}

beforeAll(async () => {
  // No SECRETS_ENCRYPTION_KEYS: the embedded setup's own key (PGlite), or this process's (tests on PostgreSQL).
  const opened = await d.open();
  const receiver = await startReceiver();
  try {
    const tenant = await opened.seed.tenant();
    apiKeys.push(tenant.apiKey, `cak_${'p'.repeat(43)}`);
    // A presented key that is no one's: refused, and never stored.
    const refused = await opened.app.inject({ url: '/v0/pages', headers: { 'x-api-key': apiKeys[1] ?? '' } });
    expect(refused.statusCode).toBe(401);
    for (const n of [1, 2]) {
      const headers = { ...tenant.auth(), 'idempotency-key': `create-${n}` };
      const payload = { url: receiver.url, description: `subscription ${n}` };
      const created = await opened.app.inject({
        method: 'POST',
        url: '/v0/webhook_subscriptions',
        headers,
        payload,
      });
      expect(created.statusCode, created.body).toBe(201);
      signingSecrets.push(created.json().signingSecret);
      if (n === 1) firstCreate = { body: created.body, apiKey: tenant.apiKey, url: receiver.url };
      const replay = await opened.app.inject({
        method: 'POST',
        url: '/v0/webhook_subscriptions',
        headers,
        payload,
      });
      expect(replay.body).toBe(created.body);
      const rotated = await opened.app.inject({
        method: 'POST',
        url: `/v0/webhook_subscriptions/${created.json().webhookSubscriptionId}/rotate_secret`,
        headers: { ...tenant.auth(), 'idempotency-key': `rotate-${n}` },
        payload: {},
      });
      expect(rotated.statusCode, rotated.body).toBe(200);
      signingSecrets.push(rotated.json().signingSecret);
      keptResponses += 2;
    }
    await opened.deliverOneEvent(tenant);
    expect(receiver.received).toHaveLength(2);
  } finally {
    await receiver.close();
    await opened.close();
  }
}, 120_000);

describe('a copy of the database', () => {
  it('holds no signing secret, API key or presented key, after subscriptions, rotations, replays and deliveries', async () => {
    const copy = await dump();
    // The copy is real: it holds the subscriptions, their kept responses (sealed; PGlite's files hold
    // rows in the WAL too) and the deliveries.
    expect(copy).toContain('subscription 2');
    expect(copy.match(/\\?"signingSecret\\?":\\?"v1\./g)?.length).toBeGreaterThanOrEqual(keptResponses);
    expect(copy).toContain('page.version.created');
    const leaks = [...signingSecrets, ...apiKeys].flatMap(forms).filter((form) => copy.includes(form));
    expect(leaks).toEqual([]);
  });
});

describe('the embedded setup with no configuration', () => {
  it.skipIf(loadTestSettings().databaseUrl !== undefined)(
    'keeps its generated key in the data directory, owner-only, and reads it again after a restart',
    async () => {
      const mode = (await stat(join(d.dataDir ?? '', KEY_FILE_NAME))).mode & 0o777;
      expect(mode).toBe(0o600);
      const reopened = await d.open();
      try {
        const replay = await reopened.app.inject({
          method: 'POST',
          url: '/v0/webhook_subscriptions',
          headers: { 'x-api-key': firstCreate?.apiKey ?? '', 'idempotency-key': 'create-1' },
          payload: { url: firstCreate?.url, description: 'subscription 1' },
        });
        expect(replay.headers['idempotent-replayed']).toBe('true');
        expect(replay.body).toBe(firstCreate?.body);
      } finally {
        await reopened.close();
      }
    },
  );
});
