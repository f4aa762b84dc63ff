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
 * Purges one tenant's attempts and events older than `cutoff`, batch after batch, each its own
 * statement on the tenant's rows only (a router query on Citus).
 */
export async function purgeTenant(db: Handle, tenantId: string, cutoff: Date): Promise<Purged> {
  const purged: Purged = { attempts: 0, events: 0 };
  for (const { id } of await db.all(subscriptionsOf, { tenantId })) {
    const scope = deliveriesCounter(id);
    for (;;) {
      const [row] = await db.all(purgeAttempts, {
        tenantId,
        subscriptionId: id,
        scope,
        cutoff,
        batch: PURGE_BATCH,
      });
      purged.attempts += row?.n ?? 0;
      if ((row?.n ?? 0) < PURGE_BATCH) break;
    }
  }
  for (;;) {
    const n = await db.run(purgeEvents, { tenantId, cutoff, batch: PURGE_BATCH });
    purged.events += n;
    if (n < PURGE_BATCH) break;
  }
  return purged;
}

/**
 * Purges every tenant's attempts and events older than `retentionDays`, a tenant at a time.
 * Returns what it removed.
 */
export async function purgeExpired(db: Handle, now: Date, retentionDays: number): Promise<Purged> {
  const cutoff = retainedSince(now, retentionDays);
  const total: Purged = { attempts: 0, events: 0 };
  let after = '';
  for (;;) {
    const tenants = await db.all(tenantsAfter, { after, take: 100 });
    for (const { id } of tenants) {
      const purged = await purgeTenant(db, id, cutoff);
      total.attempts += purged.attempts;
      total.events += purged.events;
    }
    const last = tenants.at(-1);
    if (!last || tenants.length < 100) return total;
    after = last.id;
  }
}

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
}

/**
 * The dispatcher's purge of what is older than the retention: a pass over every tenant, a minute
 * after start (or `intervalMs`, when shorter) and then every `intervalMs`, one small statement at a
 * time, never beside another pass.
 */
export class RetentionSweeper {
  readonly #o: RetentionSweeperOptions;
  /** Time between passes. */
  readonly #intervalMs: number;
  #timer: NodeJS.Timeout | undefined;
  #pass: Promise<void> | undefined;
  #stopped = false;

  constructor(options: RetentionSweeperOptions) {
    this.#o = options;
    this.#intervalMs = options.intervalMs ?? 3_600_000;
  }

  start(): void {
    this.#schedule(Math.min(60_000, this.#intervalMs));
  }

  /** Stops scheduling passes and waits for the one under way, if any. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#pass;
  }

  /** Runs one pass now (tests, `runOnce`); resolves when it is done. */
  runOnce(): Promise<Purged> {
    return purgeExpired(this.#o.db, this.#o.clock(), this.#o.retentionDays);
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
