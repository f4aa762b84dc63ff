import type { Handle } from '../db/port.js';
import { rowOf, sql, statement, timestamptz } from '../db/sql.js';
import { type Claimed, type InFlight, type LeaseRequest, leaseTenantWithTargets } from './lease.repo.js';
import { groupBy } from './tenant-scope.js';

/** Most tenants one claim leases from at once (one statement and one connection each). */
export const TENANTS_PER_CLAIM = 8;

/*
 * The tenants with an attempt due and not leased, read on every shard (a multi-shard read on
 * Citus, grouped by the distribution column, so each worker answers for its own tenants).
 */
const dueTenantsStatement = statement({
  name: 'webhook_due_tenants',
  params: { now: timestamptz },
  sql: (p) => sql`SELECT q.tenant_id AS "tenantId" FROM webhook_delivery_queue q
WHERE q.next_attempt_at <= ${p.now}::timestamptz
  AND (q.leased_until IS NULL OR q.leased_until <= ${p.now}::timestamptz)
GROUP BY q.tenant_id`,
  row: rowOf<{ tenantId: string }>(),
});

/**
 * The claims of a dispatcher whose statements each run for one tenant (a Citus cluster, decision
 * 0233): it keeps the tenants that may have attempts due, learnt from the fan-outs it ran, from
 * claims that took all they asked for and from a read of every shard at most once per
 * `discoverMs`, and leases from up to {@link TENANTS_PER_CLAIM} of them at once, one statement each.
 */
export class TenantClaims {
  readonly #db: Handle;
  readonly #discoverMs: number;
  readonly #now: () => number;
  /** Tenants that may have attempts due, in the order they are next served. */
  readonly #due = new Set<string>();
  /** When each tenant was last named (by {@link learn}), counted in {@link #named} steps. */
  readonly #namedAt = new Map<string, number>();
  #named = 0;
  #discoveredAt = Number.NEGATIVE_INFINITY;

  constructor(db: Handle, { discoverMs, now = Date.now }: { discoverMs: number; now?: () => number }) {
    this.#db = db;
    this.#discoverMs = discoverMs;
    this.#now = now;
  }

  /** The next claim reads every shard first, however recent the last read. */
  rediscover(): void {
    this.#discoveredAt = Number.NEGATIVE_INFINITY;
  }

  /** A fan-out made attempts for these tenants: they have attempts due. */
  learn(tenantIds: readonly string[]): void {
    this.#named += 1;
    for (const tenantId of tenantIds) {
      this.#due.add(tenantId);
      this.#namedAt.set(tenantId, this.#named);
    }
  }

  /**
   * Leases up to `request.limit` attempts, shared among the tenants with attempts due: the least
   * busy first (by `request.inFlight`), each at most `request.tenantCap` held, the slots split
   * evenly and what a tenant cannot use passed on. A tenant whose claim took fewer than it asked has
   * nothing more due and is dropped until a fan-out or a read of the shards names it again.
   */
  async claim(request: LeaseRequest): Promise<Claimed[]> {
    if (request.limit <= 0) return [];
    // A worker down fails the read of every shard: the tenants already known are still served.
    const unread = await this.#discover(request.now).then(
      () => undefined,
      (err: unknown) => ({ err }),
    );
    const held = groupBy(request.inFlight ?? [], (f) => f.tenantId);
    const cap = request.tenantCap ?? request.limit;
    const heldBy = (tenantId: string) => sum(held.get(tenantId) ?? []);
    const chosen = [...this.#due]
      .map((tenantId) => ({ tenantId, room: cap - heldBy(tenantId) }))
      .filter((t) => t.room > 0)
      .sort((a, b) => b.room - a.room)
      .slice(0, TENANTS_PER_CLAIM);
    const asks = share(request.limit, chosen);
    const named = this.#named;
    const answers = await Promise.allSettled(
      asks.map(async ({ tenantId, limit }) => {
        // Served, or failed (its worker down): to the back of the line.
        this.#due.delete(tenantId);
        this.#due.add(tenantId);
        const claimed = await leaseTenantWithTargets(this.#db, tenantId, {
          ...request,
          limit,
          inFlight: held.get(tenantId) ?? [],
        });
        // Out of the line when nothing more is due, unless a fan-out named it meanwhile.
        if (claimed.length < limit && (this.#namedAt.get(tenantId) ?? 0) <= named) {
          this.#due.delete(tenantId);
          this.#namedAt.delete(tenantId);
        }
        return claimed;
      }),
    );
    // One tenant's worker down fails its claim only; the others' leases are kept and sent.
    const claimed = answers.flatMap((a) => (a.status === 'fulfilled' ? a.value : []));
    const failed = answers.find((a): a is PromiseRejectedResult => a.status === 'rejected');
    if (claimed.length === 0 && (failed || unread)) throw failed ? failed.reason : unread?.err;
    return claimed;
  }

  /** Reads every shard for tenants with attempts due, at most once per `discoverMs`. */
  async #discover(now: Date): Promise<void> {
    if (this.#now() - this.#discoveredAt < this.#discoverMs) return;
    this.#discoveredAt = this.#now();
    const rows = await this.#db.all(dueTenantsStatement, { now });
    this.learn(rows.map((r) => r.tenantId));
  }
}

function sum(inFlight: readonly InFlight[]): number {
  return inFlight.reduce((total, f) => total + f.count, 0);
}

/** `limit` slots split evenly among `tenants`, none past its room, what one cannot use passed on. */
function share(
  limit: number,
  tenants: readonly { tenantId: string; room: number }[],
): { tenantId: string; limit: number }[] {
  const asks = tenants.map((t) => ({ tenantId: t.tenantId, limit: 0, room: t.room }));
  let left = limit;
  while (left > 0) {
    const open = asks.filter((a) => a.limit < a.room);
    if (open.length === 0) break;
    const each = Math.max(1, Math.floor(left / open.length));
    for (const a of open) {
      const add = Math.min(each, a.room - a.limit, left);
      a.limit += add;
      left -= add;
      if (left === 0) break;
    }
  }
  return asks.filter((a) => a.limit > 0).map(({ tenantId, limit: n }) => ({ tenantId, limit: n }));
}
