import { describe, expect, it } from 'vitest';
import { newId } from '../lib/ids.js';
import { isCitus } from '../test/citus.js';
import { query } from '../test/sql.js';
import { useTestApp } from '../test/test-app.js';
import { steppingClock, WEBHOOK_TEST_ENV, webhookHelpers } from '../test/webhooks.js';
import { fanOut } from './fan-out.js';
import { leaseDue, leaseTenantWithTargets } from './lease.repo.js';
import { recordOutcome } from './record.js';
import type { SendOutcome } from './sender.js';

const time = steppingClock();
const t = useTestApp({ clock: time.clock, env: WEBHOOK_TEST_ENV });
const h = webhookHelpers(t, time.clock);

const answered = (status: number): SendOutcome => ({
  status,
  body: '',
  durationMs: 3,
  retryAfter: undefined,
  error: null,
});

describe('recording an outcome', () => {
  it('is done only by the current lease holder: a dispatcher whose lease ran out writes nothing', async () => {
    const sub = await h.subscribe('http://127.0.0.1:9/never');
    await h.version();
    const db = t.database.db;
    const deps = { clock: time.clock, ids: newId, retryScheduleSeconds: [1, 2, 4] };
    const onCitus = await isCitus(db);
    await fanOut(db, deps, 100, { byTenant: onCitus });
    const lease = (token: string) => {
      const now = time.clock();
      const request = { now, leasedUntil: new Date(now.getTime() + 1000), token, limit: 100 };
      return onCitus
        ? leaseTenantWithTargets(db, t.tenant.tenantId, request).then((c) => c.map((x) => x.row))
        : leaseDue(db, request);
    };
    const [slow] = (await lease('slow')).filter((r) => r.subscriptionId === sub.webhookSubscriptionId);
    if (!slow) throw new Error('nothing leased');
    // Leased attempts are not due for anybody else.
    expect((await lease('other')).some((r) => r.id === slow.id)).toBe(false);
    time.advance(1001);
    const [fast] = (await lease('fast')).filter((r) => r.id === slow.id);
    expect(fast?.leaseToken).toBe('fast');

    expect(await recordOutcome(db, deps, slow, 'slow', answered(500))).toBe('lease-lost');
    expect(await recordOutcome(db, deps, slow, 'slow', answered(200))).toBe('lease-lost');
    expect(await recordOutcome(db, deps, slow, 'fast', answered(500))).toBe('retrying');
    const rows = await query(db, 'SELECT * FROM webhook_deliveries WHERE subscription_id = $1', [
      sub.webhookSubscriptionId,
    ]);
    expect(rows.map((r) => [r.attempt, r.status, r.response_status]).sort()).toEqual([
      [1, 'failed', 500],
      [2, 'pending', null],
    ]);
    // A late recorder cannot overwrite the recorded outcome either.
    expect(await recordOutcome(db, deps, slow, 'fast', answered(200))).toBe('lease-lost');
  });
});
