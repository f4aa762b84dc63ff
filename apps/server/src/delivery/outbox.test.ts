import { describe, expect, it } from 'vitest';
import { systemClock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { query } from '../test/sql.js';
import { useTestApp } from '../test/test-app.js';
import { WEBHOOK_TEST_ENV, webhookHelpers } from '../test/webhooks.js';
import { recordVersionEvent } from './outbox.js';

const t = useTestApp({ env: WEBHOOK_TEST_ENV });
const h = webhookHelpers(t, systemClock);

const eventsOf = (tenantId: string) =>
  query(t.database.db, 'SELECT * FROM webhook_events WHERE tenant_id = $1', [tenantId]);

const subject = (tenantId: string) => ({
  tenantId,
  pageId: newId('page'),
  audienceId: newId('audience'),
  versionId: newId('version'),
  status: 'draft' as const,
  createdAt: new Date(),
});

describe('the outbox', () => {
  it('holds an event exactly when its transaction commits', async () => {
    const deps = { clock: systemClock, ids: newId };
    await expect(
      t.database.db.transaction(async (tx) => {
        await recordVersionEvent(tx, deps, 'page.version.created', subject(t.tenant.tenantId));
        throw new Error('the version change failed');
      }),
    ).rejects.toThrow('the version change failed');
    expect(await eventsOf(t.tenant.tenantId)).toEqual([]);
    const id = await t.database.db.transaction((tx) =>
      recordVersionEvent(tx, deps, 'page.version.published', subject(t.tenant.tenantId)),
    );
    expect((await eventsOf(t.tenant.tenantId)).map((e) => [e.id, e.type])).toEqual([
      [id, 'page.version.published'],
    ]);
  });

  it('gets exactly one event per version created through the API, none for a refused change', async () => {
    const { page, audience } = await h.version();
    expect(await eventsOf(t.tenant.tenantId)).toHaveLength(1);
    await t.app.inject({
      method: 'POST',
      url: `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/archive`,
      headers: t.auth(),
      payload: {},
    });
    const refused = await t.app.inject({
      method: 'POST',
      url: `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/versions`,
      headers: t.auth(),
      payload: {},
    });
    expect(refused.statusCode).toBe(409);
    expect((await eventsOf(t.tenant.tenantId)).map((e) => e.type)).toEqual(['page.version.created']);
  });

  it('deleting a subscription closes its queued attempts: nothing more is sent', async () => {
    const sub = await h.subscribe('http://127.0.0.1:9/never');
    await h.version();
    const d = h.dispatcher();
    await d.runOnce();
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/v0/webhook_subscriptions/${sub.webhookSubscriptionId}`,
      headers: t.auth(),
    });
    expect(res.statusCode).toBe(200);
    const rows = await query(t.database.db, 'SELECT * FROM webhook_deliveries WHERE subscription_id = $1', [
      sub.webhookSubscriptionId,
    ]);
    expect(rows.map((r) => [r.attempt, r.status])).toEqual(
      expect.arrayContaining([
        [1, 'failed'],
        [2, 'failed'],
      ]),
    );
    expect(rows.find((r) => r.attempt === 2)?.error).toMatch(/disabled \(Deleted\.\)/);
    await h.stopAll();
  });
});
