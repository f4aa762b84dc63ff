import type { NodePostgresDatabase } from './adapters/node-postgres.js';
import type { HeldDb } from './adapters/node-postgres-handles.js';
import type { Db } from './port.js';
import { type TenantShare, TenantShareExceeded } from './tenant-share.js';
import { primaryWalPosition, readStandbyState, type StandbyState } from './wal-position.js';
import type { WritePositions } from './write-positions.js';

/** Why a read ran where it ran (the `reason` label of `db_reads_total`). */
export type ReadReason =
  /** The standby had replayed the tenant's last write (or the tenant wrote nothing recently). */
  | 'replayed'
  /** The standby had not yet replayed the tenant's last write. */
  | 'behind'
  /** The standby's replay lag was over `DATABASE_REPLICA_MAX_LAG_MS`, or it was not streaming. */
  | 'lag'
  /** The standby could not be reached, failed a statement, or is not a standby. */
  | 'unavailable'
  /** The tenant's last write position could not be known (Redis failing, or recovering). */
  | 'positions';

/** Where a read operation runs: a standby connection checked for the tenant, or the primary. */
export type ReadPlacement =
  | { target: 'replica'; db: HeldDb; reason: 'replayed' }
  | { target: 'primary'; db: Db; reason: Exclude<ReadReason, 'replayed'> };

/** Options of {@link ReplicaReads}. */
export interface ReplicaReadsOptions {
  primary: NodePostgresDatabase;
  replica: NodePostgresDatabase;
  positions: WritePositions;
  share: TenantShare;
  maxLagMs: number;
  /** How long a connection's checked standby state is reused (default 100 ms). */
  stateTtlMs?: number;
  /** How long reads stay on the primary after the standby failed (default 1 s). */
  downMs?: number;
  now?: () => number;
}

interface CheckedState {
  state: StandbyState;
  at: number;
}

/**
 * Places read operations on a streaming standby when that is safe for the tenant, and records
 * where each tenant's writes committed. A read goes to the standby only when the standby behind
 * the connection it got has replayed the tenant's last recorded write, its replay lag is within
 * `maxLagMs` and it is streaming; every other read, and every write, runs on the primary. See
 * docs/decisions/0208-read-replicas.md.
 */
export class ReplicaReads {
  /** Each replica connection's last checked state: the standby behind a connection never changes. */
  readonly #states = new WeakMap<HeldDb['connection'], CheckedState>();
  readonly #now: () => number;
  readonly #stateTtlMs: number;
  readonly #downMs: number;
  #downUntil = 0;

  constructor(private readonly options: ReplicaReadsOptions) {
    this.#now = options.now ?? Date.now;
    this.#stateTtlMs = options.stateTtlMs ?? 100;
    this.#downMs = options.downMs ?? 1000;
  }

  /**
   * Where `tenantId`'s read runs. A `replica` placement holds a standby connection: the caller
   * runs the read on it, then calls {@link ReplicaReads.done}.
   */
  async place(tenantId: string): Promise<ReadPlacement> {
    const primary = (reason: Exclude<ReadReason, 'replayed'>): ReadPlacement => ({
      target: 'primary',
      db: this.options.primary.forTenant(this.options.share, tenantId),
      reason,
    });
    if (this.#now() < this.#downUntil) return primary('unavailable');
    const needed = await this.options.positions.get(tenantId);
    if (needed === 'unknown') return primary('positions');
    let held: HeldDb;
    try {
      held = await this.options.replica.hold(this.options.share, tenantId);
    } catch (err) {
      if (err instanceof TenantShareExceeded) throw err;
      this.#down();
      return primary('unavailable');
    }
    const verdict = await this.#check(held, needed).catch(() => 'unavailable' as const);
    if (verdict === 'replayed') return { target: 'replica', db: held, reason: 'replayed' };
    held.release();
    if (verdict === 'unavailable') this.#down();
    return primary(verdict);
  }

  /**
   * Gives a replica placement's connection back. A statement that failed there sends reads to the
   * primary for a while (`downMs`).
   */
  done(placement: ReadPlacement & { target: 'replica' }): void {
    if (placement.db.failure !== undefined) this.#down();
    placement.db.release();
  }

  /**
   * Records where the primary's WAL is now as `tenantId`'s last write: call after its writes
   * committed (and before answering), so that no later read of the tenant misses them.
   */
  async written(tenantId: string): Promise<void> {
    const lsn = await primaryWalPosition(this.options.primary.db).catch(() => undefined);
    // Unknown: the write may have committed anywhere up to now, so no standby may serve the
    // tenant until the position expires.
    await this.options.positions.record(tenantId, lsn ?? MAX_POSITION);
  }

  /** `replayed` when the standby may serve the read, else why not. */
  async #check(held: HeldDb, needed: bigint | undefined): Promise<Exclude<ReadReason, 'positions'>> {
    let checked = this.#states.get(held.connection);
    const fresh = checked && this.#now() - checked.at < this.#stateTtlMs;
    if (!checked || !fresh || (needed !== undefined && !reached(checked.state, needed))) {
      checked = { state: await readStandbyState(held), at: this.#now() };
      this.#states.set(held.connection, checked);
    }
    const { state } = checked;
    if (!state.standby || state.replayed === undefined) return 'unavailable';
    if (!state.streaming || state.lagMs === undefined || state.lagMs > this.options.maxLagMs) return 'lag';
    return needed === undefined || reached(state, needed) ? 'replayed' : 'behind';
  }

  #down(): void {
    this.#downUntil = this.#now() + this.#downMs;
  }
}

/** A position no standby reaches: the tenant's reads stay on the primary until it expires. */
const MAX_POSITION = (1n << 64n) - 1n;

const reached = (state: StandbyState, needed: bigint) =>
  state.replayed !== undefined && state.replayed >= needed;
