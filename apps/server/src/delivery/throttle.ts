import type { Handle } from '../db/port.js';
import { int, rowOf, sql, statement, text, textArray, timestamptz, timestamptzArray } from '../db/sql.js';
import type { Claimed } from './lease.repo.js';
import { groupBy } from './tenant-scope.js';

/**
 * A subscription's throttle is a GCRA (generic cell rate algorithm) kept on its row: `throttle_at`
 * is the turn the next attempt gets, and each turn given moves it on by 1/rate seconds. An attempt
 * whose turn is less than one burst ahead is sent at once; the burst is 50 ms of the rate, at least
 * one attempt. The statement gives `wanted` turns and answers the first with the rate and burst.
 * An attempt's turn is kept on its queue row (`turn_at`); its log row shows when it is due.
 */
const take = statement({
  name: 'webhook_throttle_take',
  params: { tenantId: text, subscriptionId: text, wanted: int, now: timestamptz },
  sql: (p) => sql`WITH current AS (
  SELECT tenant_id, id, max_deliveries_per_second AS rate, throttle_at,
    greatest(coalesce(throttle_at, ${p.now}::timestamptz), ${p.now}::timestamptz) AS start
  FROM webhook_subscriptions WHERE tenant_id = ${p.tenantId} AND id = ${p.subscriptionId} FOR UPDATE
), turns AS (
  SELECT tenant_id, id, rate, start, CASE WHEN rate IS NULL THEN throttle_at
    ELSE start + make_interval(secs => ${p.wanted}::int::float8 / rate) END AS next
  FROM current
)
UPDATE webhook_subscriptions s SET throttle_at = t.next
FROM turns t
WHERE s.tenant_id = ${p.tenantId} AND s.tenant_id = t.tenant_id AND s.id = t.id
RETURNING t.start AS "firstTurn", t.rate AS rate, greatest(1, ceil(t.rate / 20.0))::int AS burst`,
  row: rowOf<{ firstTurn: Date; rate: number | null; burst: number | null }>(),
});

const wait = statement({
  name: 'webhook_throttle_wait',
  params: { tenantId: text, ids: textArray, turns: timestamptzArray, token: text },
  sql: (p) => sql`WITH waiting AS (
  UPDATE webhook_delivery_queue q
  SET next_attempt_at = k.turn_at, turn_at = k.turn_at, lease_token = NULL, leased_until = NULL
  FROM unnest(${p.ids}::text[], ${p.turns}::timestamptz[]) AS k(id, turn_at)
  WHERE q.tenant_id = ${p.tenantId} AND q.id = k.id AND q.lease_token = ${p.token}
  RETURNING q.id, q.next_attempt_at
)
UPDATE webhook_deliveries d SET next_attempt_at = w.next_attempt_at
FROM waiting w WHERE d.tenant_id = ${p.tenantId} AND d.id = w.id`,
});

const releaseTurnsStatement = statement({
  name: 'webhook_throttle_release_turns',
  params: { tenantId: text, subscriptionId: text, now: timestamptz },
  sql: (p) => sql`WITH waiting AS (
  UPDATE webhook_delivery_queue SET next_attempt_at = ${p.now}, turn_at = NULL
  WHERE tenant_id = ${p.tenantId} AND subscription_id = ${p.subscriptionId} AND turn_at IS NOT NULL
  RETURNING id
), logged AS (
  UPDATE webhook_deliveries SET next_attempt_at = ${p.now}
  WHERE tenant_id = ${p.tenantId} AND id IN (SELECT id FROM waiting))
UPDATE webhook_subscriptions SET throttle_at = NULL WHERE tenant_id = ${p.tenantId} AND id = ${p.subscriptionId}`,
});

/**
 * A subscription's throttle changed or was removed: the attempts waiting for a turn are due at
 * once, to be given turns at the new rate (or none), and the next turn starts afresh.
 */
export async function releaseTurns(
  db: Handle,
  tenantId: string,
  subscriptionId: string,
  now: Date,
): Promise<void> {
  await db.run(releaseTurnsStatement, { tenantId, subscriptionId, now });
}

/** What a throttle decided for a subscription's claimed attempts. */
export interface Turns {
  /** Attempts to send now, in the order claimed. */
  send: Claimed[];
  /** When the first attempt given back is due at its turn (undefined: none given back). */
  waitUntil: Date | undefined;
}

/** An attempt of a throttled subscription that holds no turn yet. */
function needsTurn(claimed: Claimed): boolean {
  return (
    (claimed.target.subscription?.maxDeliveriesPerSecond ?? null) !== null && claimed.row.turnAt === null
  );
}

/**
 * Gives turns of a throttled subscription to `claimed` (its attempts, in the order they should be
 * sent): those whose turn is within a burst of now are returned to send; the others go back to the
 * queue unleased, each due at its turn, which it keeps: claimed again then, it is sent without
 * taking another. A waiting attempt is neither failed nor retried (its attempt number does not
 * change). The subscription's row is locked for the statement only, so dispatchers share one rate.
 * A subscription deleted or no longer throttled lets every attempt through.
 */
export async function takeTurns(
  db: Handle,
  claimed: readonly Claimed[],
  token: string,
  now: Date,
): Promise<Turns> {
  const first = claimed[0];
  if (!first) return { send: [], waitUntil: undefined };
  const { tenantId, subscriptionId } = first.row;
  const given = await db.first(take, { tenantId, subscriptionId, wanted: claimed.length, now });
  if (!given || given.rate === null || given.burst === null)
    return { send: [...claimed], waitUntil: undefined };
  const intervalMs = 1000 / given.rate;
  const firstTurn = given.firstTurn.getTime();
  const burstEnd = now.getTime() + given.burst * intervalMs;
  const send: Claimed[] = [];
  const waiting: Array<{ id: string; turn: Date }> = [];
  claimed.forEach((c, i) => {
    const turn = firstTurn + i * intervalMs;
    if (turn < burstEnd) send.push(c);
    else waiting.push({ id: c.row.id, turn: new Date(turn) });
  });
  if (waiting.length > 0) {
    await db.run(wait, { tenantId, ids: waiting.map((w) => w.id), turns: waiting.map((w) => w.turn), token });
  }
  return { send, waitUntil: waiting[0]?.turn };
}

/** What {@link ThrottleGate} works with. */
export interface ThrottleGateDeps {
  db: Handle;
  /** The dispatcher's lease token. */
  token: string;
  clock: () => Date;
  /** Attempts a turn allows now: queued to send. */
  admit: (claimed: Claimed[]) => void;
  /** Attempts a failed turn could not decide on: their leases given back. */
  giveBack: (claimed: Claimed[]) => Promise<void>;
  /** The earliest deferred attempt falls due then: claim again about that time. */
  dueAgain: (at: Date) => void;
  warn: (err: unknown, attempts: number) => void;
}

/**
 * The dispatcher's door for claimed attempts: those of unthrottled subscriptions pass at once;
 * those of a throttled one wait for a turn ({@link takeTurns}), one statement per subscription.
 */
export class ThrottleGate {
  readonly #deps: ThrottleGateDeps;

  constructor(deps: ThrottleGateDeps) {
    this.#deps = deps;
  }

  /**
   * Splits `claimed`: what may be sent now, and the turns taken for the rest (settled when each
   * throttled subscription's attempts were admitted, deferred or given back; never rejects).
   */
  pass(claimed: Claimed[]): { now: Claimed[]; turns: Promise<void> | undefined } {
    // The common case, no throttled subscription among them, allocates nothing.
    if (!claimed.some(needsTurn)) return { now: claimed, turns: undefined };
    const now: Claimed[] = [];
    const waiting: Claimed[] = [];
    for (const c of claimed) (needsTurn(c) ? waiting : now).push(c);
    const groups = groupBy(waiting, (c) => `${c.row.tenantId}\u0000${c.row.subscriptionId}`);
    const turns = Promise.all([...groups.values()].map((group) => this.#turn(group))).then(() => {});
    return { now, turns };
  }

  async #turn(group: Claimed[]): Promise<void> {
    const deps = this.#deps;
    try {
      const { send, waitUntil } = await takeTurns(deps.db, group, deps.token, deps.clock());
      if (waitUntil) deps.dueAgain(waitUntil);
      deps.admit(send);
    } catch (err) {
      deps.warn(err, group.length);
      await deps.giveBack(group);
    }
  }
}
