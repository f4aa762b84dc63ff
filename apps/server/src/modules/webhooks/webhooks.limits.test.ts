import { describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../db/database.js';
import { systemClock } from '../../lib/clock.js';
import { ConflictError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { CursorCodec } from '../../lib/pagination.js';
import { openSecretBox } from '../../secrets/keyring.js';
import { expectApiError } from '../../test/http-cases.js';
import { useTestApp } from '../../test/test-app.js';
import { countLiveSubscriptions } from './webhooks.repo.js';
import { createWebhookSubscription } from './webhooks.service.js';

const t = useTestApp();

const URL_OK = 'https://hooks.example.com/customer-api';
const create = () =>
  t.app.inject({
    method: 'POST',
    url: '/v0/webhook_subscriptions',
    headers: t.auth(),
    payload: { url: URL_OK },
  });

describe('the subscription cap (WEBHOOKS_MAX_SUBSCRIPTIONS, 16 by default)', () => {
  it('answers the 17th subscription 409 CONFLICT naming the limit; deleting one makes room', async () => {
    expect(t.config.webhooks.maxSubscriptions).toBe(16);
    const ids: string[] = [];
    for (let i = 0; i < 16; i += 1) {
      const res = await create();
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().webhookSubscriptionId);
    }
    const body = expectApiError(await create(), 'CONFLICT');
    expect(body.detail).toMatch(/limit reached.*16 .*16 are allowed.*Delete one/s);
    const list = await t.app.inject({ url: '/v0/webhook_subscriptions', headers: t.auth() });
    expect(list.json().totalCount).toBe(16);
    // Another tenant's subscriptions do not count against this one.
    const other = await t.seed.tenant();
    const theirs = await t.app.inject({
      method: 'POST',
      url: '/v0/webhook_subscriptions',
      headers: other.auth(),
      payload: { url: URL_OK },
    });
    expect(theirs.statusCode).toBe(201);

    const gone = await t.app.inject({
      method: 'DELETE',
      url: `/v0/webhook_subscriptions/${ids[0]}`,
      headers: t.auth(),
    });
    expect(gone.statusCode).toBe(200);
    expect((await create()).statusCode).toBe(201);
    expectApiError(await create(), 'CONFLICT');
  });

  it('holds under concurrent creates from several processes: never more than the cap', async () => {
    const ATTEMPTS = 40;
    // On PostgreSQL, separate pools stand in for separate server processes.
    const url = t.config.databaseUrl;
    const pools: Database[] = url
      ? await Promise.all([0, 1, 2, 3].map(() => openDatabase({ databaseUrl: url })))
      : [];
    try {
      const dbs = pools.length > 0 ? pools.map((p) => p.db) : [t.database.db];
      const results = await Promise.allSettled(
        Array.from({ length: ATTEMPTS }, (_, i) =>
          createWebhookSubscription(
            {
              db: dbs[i % dbs.length] ?? t.database.db,
              clock: systemClock,
              ids: newId,
              cursors: new CursorCodec('test-secret'),
              secrets: openSecretBox(t.config),
              config: t.config,
            },
            t.tenant.tenantId,
            { url: URL_OK, eventTypes: ['page.version.*'] },
          ),
        ),
      );
      const created = results.filter((r) => r.status === 'fulfilled');
      const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
      expect(created).toHaveLength(16);
      expect(refused).toHaveLength(ATTEMPTS - 16);
      for (const err of refused) expect(err).toBeInstanceOf(ConflictError);
      expect(await countLiveSubscriptions(t.database.db, t.tenant.tenantId)).toBe(16);
    } finally {
      await Promise.all(pools.map((p) => p.close()));
    }
  });
});
