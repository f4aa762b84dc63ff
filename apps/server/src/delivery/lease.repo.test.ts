import { beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.js';
import { newId } from '../lib/ids.js';
import { skipSpanningTenantsOnCitus } from '../test/citus.js';
import { query } from '../test/sql.js';
import { useTestApp } from '../test/test-app.js';
import { useThrowawayTenants } from '../test/webhooks.js';
import { type DeliveryRow, pendingAttempt, queueAttempts } from './attempts.repo.js';
import { type InFlight, leaseDue } from './lease.repo.js';

const t = useTestApp();

beforeEach(async (context) => {
  await skipSpanningTenantsOnCitus(t.database.db, context);
});
const NOW = new Date('2030-01-01T12:00:00.000Z');
const { tenant } = useThrowawayTenants(t);

/** `count` due attempts of one subscription, the first due `ageS` seconds before NOW. */
async function due(tenantId: string, subscriptionId: string, count: number, ageS: number) {
  const target = { tenantId, subscriptionId, eventType: 'page.version.created' as const };
  await queueAttempts(
    t.database.db,
    Array.from({ length: count }, (_, i) =>
      pendingAttempt(
        newId,
        { ...target, eventId: newId('evt') },
        {
          attempt: 1,
          retryStep: 0,
          createdAt: NOW,
          nextAttemptAt: new Date(NOW.getTime() - (ageS - i) * 1000),
        },
      ),
    ),
  );
}

const lease = (limit: number, options: { tenantCap?: number; inFlight?: InFlight[]; token?: string } = {}) =>
  leaseDue(t.database.db, {
    now: NOW,
    leasedUntil: new Date(NOW.getTime() + 60_000),
    token: options.token ?? 'test',
    limit,
    ...options,
  });

const bySubscription = (rows: DeliveryRow[]) =>
  rows.reduce<Record<string, number>>((acc, r) => {
    acc[r.subscriptionId] = (acc[r.subscriptionId] ?? 0) + 1;
    return acc;
  }, {});

describe('claiming due attempts', () => {
  it('serves a tenant with one new attempt before another tenant’s older backlog', async () => {
    const [a, b] = [tenant(), tenant()];
    await due(a, 'whsub_a', 50, 3600);
    await due(b, 'whsub_b', 1, 1);
    const rows = await lease(2, { tenantCap: 4 });
    expect(bySubscription(rows)).toEqual({ whsub_a: 1, whsub_b: 1 });
  });

  it('never lets one tenant hold more than its share, counting what is already in flight', async () => {
    const a = tenant();
    await due(a, 'whsub_a', 20, 3600);
    await due(a, 'whsub_later', 1, -10);
    const first = await lease(16, { tenantCap: 4, token: 'one' });
    expect(first).toHaveLength(4);
    const busy = [{ tenantId: a, subscriptionId: 'whsub_a', count: 3 }];
    const second = await lease(16, { tenantCap: 4, inFlight: busy, token: 'two' });
    // One more, neither leased to the first dispatcher nor due later.
    expect(bySubscription(second)).toEqual({ whsub_a: 1 });
    expect(first.map((r) => r.id)).not.toContain(second[0]?.id);
    const full = [{ tenantId: a, subscriptionId: 'whsub_a', count: 4 }];
    expect(await lease(16, { tenantCap: 4, inFlight: full })).toEqual([]);
  });

  it('shares a tenant’s slots round robin across its subscriptions, the least busy first', async () => {
    const a = tenant();
    await due(a, 'whsub_backlog', 30, 3600);
    await due(a, 'whsub_quiet', 2, 1);
    await due(a, 'whsub_other', 1, 1);
    expect(bySubscription(await lease(16, { tenantCap: 4 }))).toEqual({
      whsub_backlog: 2,
      whsub_quiet: 1,
      whsub_other: 1,
    });
    await query(
      t.database.db,
      'UPDATE webhook_delivery_queue SET leased_until = NULL, lease_token = NULL WHERE tenant_id = $1',
      [a],
    );
    const busy = [{ tenantId: a, subscriptionId: 'whsub_backlog', count: 2 }];
    expect(bySubscription(await lease(16, { tenantCap: 4, inFlight: busy }))).toEqual({
      whsub_quiet: 1,
      whsub_other: 1,
    });
  });

  it('gives dispatchers claiming at the same moment disjoint attempts', async () => {
    const ids = [tenant(), tenant(), tenant()];
    for (const id of ids) await due(id, `whsub_${id}`, 10, 100);
    // On PostgreSQL, separate pools: the claims really overlap, as from separate processes.
    const url = t.config.databaseUrl;
    const pools = url ? await Promise.all([0, 1, 2, 3].map(() => openDatabase({ databaseUrl: url }))) : [];
    try {
      const dbs = pools.length > 0 ? pools.map((p) => p.db) : [t.database.db, t.database.db];
      const claims = await Promise.all(
        dbs.map((db, i) =>
          leaseDue(db, {
            now: NOW,
            leasedUntil: new Date(NOW.getTime() + 60_000),
            token: `d${i}`,
            limit: 16,
            tenantCap: 4,
          }),
        ),
      );
      const all = claims.flat().map((r) => r.id);
      expect(new Set(all).size).toBe(all.length);
      // Each dispatcher keeps to the cap: at most 4 of one tenant per claim.
      for (const claim of claims)
        expect(Math.max(...Object.values(bySubscription(claim)))).toBeLessThanOrEqual(4);
    } finally {
      await Promise.all(pools.map((p) => p.close()));
    }
  });
});
