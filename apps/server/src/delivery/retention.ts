import { setTimeout as delay } from 'node:timers/promises';
import type { Handle } from '../db/port.js';
import { int, rowOf, sql, statement, text, timestamptz } from '../db/sql.js';
import type { Clock } from '../lib/clock.js';
import { deliveriesCounter } from './attempts.repo.js';
import type { DispatcherLog } from './types.js';

/** Rows one purge statement deletes at most: short statements, off the delivery path. */
export const PURGE_BATCH = 500;

const DAY_MS = 86_400_000;

/** The oldest creation time a listing still holds: `now` minus the retention. */
export function retainedSince(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * DAY_MS);
}

/* Tenants in id order, a page at a time (a reference table on Citus: read on the coordinator). */
const tenantsAfter = statement({
  name: 'webhook_retention_tenants',
  params: { after: text, take: int },
  sql: (p) => sql`SELECT id FROM tenants WHERE id > ${p.after} ORDER BY id LIMIT ${p.take}`,
  row: rowOf<{ id: string }>(),
});

/* A tenant's subscriptions, deleted ones included: their attempts are kept as long as others'. */
const subscriptionsOf = statement({
  name: 'webhook_retention_subscriptions',
  params: { tenantId: text },
  sql: (p) => sql`SELECT id FROM webhook_subscriptions WHERE tenant_id = ${p.tenantId}`,
  row: rowOf<{ id: string }>(),
});

/*
 * Deletes up to a batch of one subscription's finished attempts created before the cutoff (through
 * the listing's index), with their responses, and takes them off the listing's counter. A pending
 * attempt is never purged. Returns how many went.
 */
const purgeAttempts = statement({
  name: 'webhook_purge_attempts',
  params: { tenantId: text, subscriptionId: text, scope: text, cutoff: timestamptz, batch: int },
  sql: (p) => sql`WITH gone AS (
  DELETE FROM webhook_deliveries d
  WHERE d.tenant_id = ${p.tenantId} AND d.ctid = ANY (ARRAY(
    SELECT x.ctid FROM webhook_deliveries x
    WHERE x.tenant_id = ${p.tenantId} AND x.subscription_id = ${p.subscriptionId}
      AND x.created_at < ${p.cutoff}::timestamptz AND x.status <> 'pending'
    LIMIT ${p.batch}))
    AND d.status <> 'pending'
  RETURNING d.id
), counted AS (
  UPDATE tenant_counters c SET count = greatest(c.count - (SELECT count(*) FROM gone), 0)
  WHERE c.tenant_id = ${p.tenantId} AND c.scope = ${p.scope} AND EXISTS (SELECT 1 FROM gone)
)
SELECT count(*)::int AS n FROM gone`,
  row: rowOf<{ n: number }>(),
});

/*
 * Deletes up to a batch of one tenant's events created before the cutoff that no attempt refers to
 * any more (every attempt purged or never made) and that wait for no fan-out. Each event is looked
 * up per subscription of its tenant through the attempts' event index.
 */
const purgeEvents = statement({
  name: 'webhook_purge_events',
  params: { tenantId: text, cutoff: timestamptz, batch: int },
  sql: (p) => sql`DELETE FROM webhook_events e
WHERE e.tenant_id = ${p.tenantId} AND e.ctid = ANY (ARRAY(
  SELECT x.ctid FROM webhook_events x
  WHERE x.tenant_id = ${p.tenantId} AND x.created_at < ${p.cutoff}::timestamptz
    AND NOT EXISTS (SELECT 1 FROM webhook_event_queue q WHERE q.tenant_id = ${p.tenantId} AND q.event_id = x.id)
    AND NOT EXISTS (
      SELECT 1 FROM webhook_subscriptions s JOIN webhook_deliveries d
        ON d.tenant_id = s.tenant_id AND d.subscription_id = s.id AND d.event_id = x.id
      WHERE s.tenant_id = ${p.tenantId} AND d.tenant_id = ${p.tenantId})
  ORDER BY x.created_at LIMIT ${p.batch}))`,
});

/** What one purge pass removed. */
export interface Purged {
  attempts: number;
  events: number;
}

/**
 * How a pass yields to deliveries: called after each purge statement with how long it took
 * (milliseconds); resolves to false to end the pass there.
 */
export type PurgePace = (statementMs: number) => Promise<boolean>;

const unpaced: PurgePace = async () => true;

/** Runs one purge statement, then the pace; false when the pass is to end. */
async function paced<T>(pace: PurgePace, run: () => Promise<T>): Promise<{ value: T; go: boolean }> {
  const started = performance.now();
  const value = await run();
  return { value, go: await pace(performance.now() - started) };
}

/**
 * Purges one tenant's attempts and events older than `cutoff`, batch after batch, each its own
 * statement on the tenant's rows only (a router query on Citus), `pace` called after each.
 * `ended` is true when the pace ended the pass before the tenant was done.
 */
export async function purgeTenant(
  db: Handle,
  tenantId: string,
  cutoff: Date,
  pace: PurgePace = unpaced,
): Promise<Purged & { ended: boolean }> {
  const purged = { attempts: 0, events: 0, ended: false };
  for (const { id } of await db.all(subscriptionsOf, { tenantId })) {
    const scope = deliveriesCounter(id);
    for (;;) {
      const { value, go } = await paced(pace, () =>
        db.all(purgeAttempts, { tenantId, subscriptionId: id, scope, cutoff, batch: PURGE_BATCH }),
      );
      const n = value[0]?.n ?? 0;
      purged.attempts += n;
      if (!go) return { ...purged, ended: true };
      if (n < PURGE_BATCH) break;
    }
  }
  for (;;) {
    const { value: n, go } = await paced(pace, () =>
      db.run(purgeEvents, { tenantId, cutoff, batch: PURGE_BATCH }),
    );
    purged.events += n;
    if (!go) return { ...purged, ended: true };
    if (n < PURGE_BATCH) break;
  }
  return purged;
}

/**
 * Purges every tenant's attempts and events older than `retentionDays`, a tenant at a time, `pace`
 * called after each statement (it may end the pass). Returns what it removed.
 */
export async function purgeExpired(
  db: Handle,
  now: Date,
  retentionDays: number,
  pace: PurgePace = unpaced,
): Promise<Purged> {
  const cutoff = retainedSince(now, retentionDays);
  const total: Purged = { attempts: 0, events: 0 };
  let after = '';
  for (;;) {
    const tenants = await db.all(tenantsAfter, { after, take: 100 });
    for (const { id } of tenants) {
      const purged = await purgeTenant(db, id, cutoff, pace);
      total.attempts += purged.attempts;
      total.events += purged.events;
      if (purged.ended) return total;
    }
    const last = tenants.at(-1);
    if (!last || tenants.length < 100) return total;
    after = last.id;
  }
}

/**
 * While deliveries are under way, a pass waits this many times as long as its last statement took
 * before the next: it then takes at most a quarter of one connection's time.
 */
export const BUSY_PAUSE_FACTOR = 3;

/** What {@link RetentionSweeper} needs. */
export interface RetentionSweeperOptions {
  db: Handle;
  clock: Clock;
  retentionDays: number;
  log: DispatcherLog;
  /**
   * Time between passes (default an hour); the first runs a minute after start, or sooner when this
   * is shorter.
   */
  intervalMs?: number;
  /** True while the dispatcher has deliveries under way: a pass then yields to them (default: never). */
  busy?: () => boolean;
  /** Waits `ms` (default a timer); a stop ends the wait early, and aborts `signal` (the timer is cleared). */
  pause?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * The dispatcher's purge of what is older than the retention: a pass over every tenant, a minute
 * after start (or `intervalMs`, when shorter) and then every `intervalMs`, one small statement at a
 * time, never beside another pass. While deliveries are under way (`busy`), it waits
 * {@link BUSY_PAUSE_FACTOR} times each statement's duration before the next, so that it takes the
 * database's time from them only in small shares; idle, it runs statement after statement. A stop
 * ends the pass at its next statement's end.
 */
export class RetentionSweeper {
  readonly #o: RetentionSweeperOptions;
  /** Time between passes. */
  readonly #intervalMs: number;
  #timer: NodeJS.Timeout | undefined;
  #pass: Promise<void> | undefined;
  #stopped = false;
  /** Ends the pause under way, if any (a stop). */
  #pausing: AbortController | undefined;

  constructor(options: RetentionSweeperOptions) {
    this.#o = options;
    this.#intervalMs = options.intervalMs ?? 3_600_000;
  }

  start(): void {
    this.#schedule(Math.min(60_000, this.#intervalMs));
  }

  /** Stops scheduling passes, ends the one under way at its current statement, and waits for it. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#pausing?.abort();
    await this.#pass;
  }

  /** Runs one pass now (tests, `runOnce`), yielding to deliveries as a scheduled pass does; resolves when it is done. */
  runOnce(): Promise<Purged> {
    return purgeExpired(this.#o.db, this.#o.clock(), this.#o.retentionDays, (ms) => this.#pace(ms));
  }

  async #pace(statementMs: number): Promise<boolean> {
    if (this.#stopped) return false;
    if (!this.#o.busy?.()) return true;
    const pausing = new AbortController();
    this.#pausing = pausing;
    const stopping = new Promise<void>((resolve) => {
      pausing.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    try {
      await Promise.race([
        (this.#o.pause ?? sleep)(BUSY_PAUSE_FACTOR * statementMs, pausing.signal),
        stopping,
      ]);
    } finally {
      pausing.abort();
      this.#pausing = undefined;
    }
    return !this.#stopped;
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#pass = this.runOnce()
        .then((purged) => {
          if (purged.attempts + purged.events > 0) this.#o.log.info(purged, 'webhook retention: purged');
        })
        .catch((err: unknown) => this.#o.log.warn({ err }, 'webhook retention pass failed; next one later'))
        .finally(() => {
          this.#pass = undefined;
          this.#schedule(this.#intervalMs);
        });
    }, ms);
    this.#timer.unref();
  }
}

/** A timer that does not keep the process alive, cleared when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal, ref: false }).catch(() => undefined);
}
