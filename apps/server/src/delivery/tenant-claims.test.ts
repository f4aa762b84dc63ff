import { describe, expect, it } from 'vitest';
import type { Db } from '../db/port.js';
import { newId } from '../lib/ids.js';
import { query } from '../test/sql.js';
import { useTestApp } from '../test/test-app.js';
import { steppingClock, useThrowawayTenants, WEBHOOK_TEST_ENV, webhookHelpers } from '../test/webhooks.js';
import { pendingAttempt, queueAttempts } from './attempts.repo.js';
import { fanOut } from './fan-out.js';
import { SuccessRecorder } from './success-batch.js';
import { TENANTS_PER_CLAIM, TenantClaims } from './tenant-claims.js';

// The dispatcher's statements confined to one tenant, as it runs them on a Citus cluster (decision
// 0233). They are ordinary statements: this file runs them on PGlite, PostgreSQL and a coordinator.

const time = steppingClock();
const t = useTestApp({ clock: time.clock, env: WEBHOOK_TEST_ENV });
const h = webhookHelpers(t, time.clock);
const NOW = new Date('2030-01-01T12:00:00.000Z');
const { tenant, adopt } = useThrowawayTenants(t);

/** `count` attempts of one subscription due at `dueAt`. */
async function due(tenantId: string, subscriptionId: string, count: number, dueAt = NOW) {
  const target = { tenantId, subscriptionId, eventType: 'page.version.created' as const };
  const run = { attempt: 1, retryStep: 0, createdAt: dueAt, nextAttemptAt: dueAt };
  await queueAttempts(
    t.database.db,
    Array.from({ length: count }, () => pendingAttempt(newId, { ...target, eventId: newId('evt') }, run)),
  );
}

function claims(clock = { ms: NOW.getTime() }) {
  return new TenantClaims(t.database.db, { discoverMs: 1000, now: () => clock.ms });
}

const request = (limit: number, extra: object = {}) => ({
  now: NOW,
  leasedUntil: new Date(NOW.getTime() + 60_000),
  token: 'mine',
  limit,
  tenantCap: 4,
  ...extra,
});

const perTenant = (rows: { row: { tenantId: string } }[]) =>
  rows.reduce<Record<string, number>>((acc, { row }) => {
    acc[row.tenantId] = (acc[row.tenantId] ?? 0) + 1;
    return acc;
  }, {});

describe('claims confined to one tenant each', () => {
  it('share the slots among the tenants with attempts due, none past its share', async () => {
    const [a, b, c] = [tenant(), tenant(), tenant()];
    await due(a, 'whsub_a', 20);
    await due(b, 'whsub_b', 2);
    await due(c, 'whsub_c', 1, new Date(NOW.getTime() + 60_000));
    const claimed = await claims().claim(request(9));
    // b has two, a its share of four; c's attempt is not due yet.
    expect(perTenant(claimed)).toEqual({ [a]: 4, [b]: 2 });
  });

  it('count what the caller holds against its tenant, and lease nothing twice', async () => {
    const a = tenant();
    await due(a, 'whsub_a', 10);
    const tc = claims();
    const first = await tc.claim(request(16));
    expect(first).toHaveLength(4);
    const held = [{ tenantId: a, subscriptionId: 'whsub_a', count: 3 }];
    const second = await tc.claim(request(16, { inFlight: held, token: 'two' }));
    expect(second).toHaveLength(1);
    expect(first.map((x) => x.row.id)).not.toContain(second[0]?.row.id);
  });

  it('find attempts fallen due only at the next read of the shards, and tenants a fan-out names at once', async () => {
    const clock = { ms: NOW.getTime() };
    const tc = claims(clock);
    const [a, b] = [tenant(), tenant()];
    expect(await tc.claim(request(8))).toEqual([]);
    await due(a, 'whsub_a', 1);
    // Read less than a second ago: a is not looked for yet.
    clock.ms += 500;
    expect(await tc.claim(request(8))).toEqual([]);
    // Named by a fan-out: claimed without a read.
    await due(b, 'whsub_b', 1);
    tc.learn([b]);
    expect(perTenant(await tc.claim(request(8)))).toEqual({ [b]: 1 });
    clock.ms += 600;
    expect(perTenant(await tc.claim(request(8)))).toEqual({ [a]: 1 });
  });

  it('keep a tenant a fan-out names while its claim is under way', async () => {
    const a = tenant();
    await due(a, 'whsub_a', 1);
    const db = t.database.db;
    let tc: TenantClaims | undefined;
    // The fan-out's attempts commit while the claim's statement runs (it sees the one before).
    const racing: Db = {
      ...db,
      all: async (statement, input) => {
        const rows = await db.all(statement, input);
        if ((input as { tenantId?: string }).tenantId === a) {
          await due(a, 'whsub_a', 1);
          tc?.learn([a]);
        }
        return rows;
      },
    };
    tc = new TenantClaims(racing, { discoverMs: 60_000, now: () => NOW.getTime() });
    expect(perTenant(await tc.claim(request(4)))).toEqual({ [a]: 1 });
    // No read of the shards for a minute: only the fan-out's word keeps `a` in line.
    expect(perTenant(await tc.claim(request(4, { token: 'two' })))).toEqual({ [a]: 1 });
  });

  it(`lease from at most ${TENANTS_PER_CLAIM} tenants at once, and from the others next`, async () => {
    const many = Array.from({ length: TENANTS_PER_CLAIM + 2 }, () => tenant());
    for (const id of many) await due(id, `whsub_${id}`, 1);
    const tc = claims();
    const first = await tc.claim(request(100));
    expect(first).toHaveLength(TENANTS_PER_CLAIM);
    const second = await tc.claim(request(100, { token: 'two' }));
    expect(Object.keys(perTenant([...first, ...second])).sort()).toEqual([...many].sort());
  });

  it("go on for the other tenants when one tenant's statements fail (its worker down)", async () => {
    const [a, down] = [tenant(), tenant()];
    await due(a, 'whsub_a', 2);
    await due(down, 'whsub_down', 2);
    const db = t.database.db;
    // The real database, but every statement naming `down` fails as a dead worker's would.
    const failing: Db = {
      ...db,
      all: (statement, input) =>
        (input as { tenantId?: string }).tenantId === down
          ? Promise.reject(new Error('connection to the remote node refused'))
          : db.all(statement, input),
    };
    const tc = new TenantClaims(failing, { discoverMs: 1000, now: () => NOW.getTime() });
    expect(perTenant(await tc.claim(request(8)))).toEqual({ [a]: 2 });
    // Nothing else to claim but the failing tenant: the failure is reported.
    await expect(tc.claim(request(8))).rejects.toThrow('refused');
  });
});

describe('fan-out and successes confined to one tenant each', () => {
  it('fan each event out once beside a concurrent fan-out, and count every attempt', async () => {
    const db = t.database.db;
    adopt(t.tenant.tenantId);
    await h.subscribe('http://127.0.0.1:9/a');
    await h.subscribe('http://127.0.0.1:9/b');
    for (let i = 0; i < 6; i += 1) await h.version();
    const deps = { clock: time.clock, ids: newId };
    const made: string[] = [];
    const options = { byTenant: true, madeFor: (ids: readonly string[]) => made.push(...ids) };
    await Promise.all([fanOut(db, deps, 4, options), fanOut(db, deps, 100, options)]);
    while ((await fanOut(db, deps, 100, options)) > 0) {}
    const rows = await query<{ event_id: string; n: number }>(
      db,
      'SELECT event_id, count(*)::int AS n FROM webhook_deliveries WHERE tenant_id = $1 GROUP BY event_id',
      [t.tenant.tenantId],
    );
    expect(rows).toHaveLength(6);
    expect(rows.every((r) => r.n === 2)).toBe(true);
    const [counter] = await query<{ count: number }>(
      db,
      "SELECT sum(count)::int AS count FROM tenant_counters WHERE tenant_id = $1 AND scope LIKE 'webhook_deliveries%'",
      [t.tenant.tenantId],
    );
    expect(counter?.count).toBe(12);
    expect(new Set(made)).toEqual(new Set([t.tenant.tenantId]));
    expect(
      await query(db, 'SELECT 1 FROM webhook_event_queue WHERE tenant_id = $1', [t.tenant.tenantId]),
    ).toEqual([]);
  });

  it('record each tenant its own successes, and only attempts still leased to the recorder', async () => {
    const [a, b] = [tenant(), tenant()];
    await due(a, 'whsub_a', 2);
    await due(b, 'whsub_b', 2);
    const claimed = await claims().claim(request(8));
    expect(claimed).toHaveLength(4);
    const recorder = new SuccessRecorder(t.database.db, undefined, { byTenant: () => true });
    const result = { responseStatus: 200, responseBody: 'ok', durationMs: 3, attemptedAt: NOW };
    const [stolen, ...own] = claimed.map((c) => c.row);
    if (!stolen) throw new Error('nothing claimed');
    const recorded = await Promise.all([
      recorder.record(stolen, 'not-mine', result),
      ...own.map((row) => recorder.record(row, 'mine', result)),
    ]);
    expect(recorded).toEqual([false, true, true, true]);
    const rows = await query<{ id: string; status: string }>(
      t.database.db,
      'SELECT id, status FROM webhook_deliveries WHERE tenant_id = ANY ($1::text[]) ORDER BY id',
      [[a, b]],
    );
    expect(
      rows
        .filter((r) => r.status === 'succeeded')
        .map((r) => r.id)
        .sort(),
    ).toEqual(own.map((r) => r.id).sort());
    // The recorded attempts left the queue; the one whose lease was not the recorder's waits there, leased.
    const queued = await query<{ id: string; lease_token: string | null }>(
      t.database.db,
      'SELECT id, lease_token FROM webhook_delivery_queue WHERE tenant_id = ANY ($1::text[])',
      [[a, b]],
    );
    expect(queued).toEqual([{ id: stolen.id, lease_token: 'mine' }]);
  });
});
