import { Redis } from 'ioredis';

/**
 * Where each tenant's last write is in the primary's WAL, so that its reads go to a standby only
 * once the standby has replayed that far. `get` answers `unknown` while the store cannot be
 * trusted to hold every recorded position: the read then runs on the primary.
 */
export interface WritePositions {
  /** Which store holds the positions. */
  readonly store: 'memory' | 'redis';
  /** Remembers that `tenantId` wrote at `lsn` (the highest position recorded wins). Never throws. */
  record(tenantId: string, lsn: bigint): Promise<void>;
  /** The position the tenant's reads must find replayed: undefined for none, `unknown` when unknown. */
  get(tenantId: string): Promise<bigint | undefined | 'unknown'>;
  close(): Promise<void>;
}

/** Longest a recorded position is kept: a standby this far behind is never read from. */
export function positionTtlMs(maxLagMs: number): number {
  return Math.max(10 * 60_000, 10 * maxLagMs);
}

const max = (a: bigint | undefined, b: bigint | undefined): bigint | undefined =>
  a === undefined ? b : b === undefined || a >= b ? a : b;

/** Positions in this process's memory: right for one API process only. */
export class MemoryWritePositions implements WritePositions {
  readonly store = 'memory';
  readonly #positions = new Map<string, { lsn: bigint; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async record(tenantId: string, lsn: bigint): Promise<void> {
    const until = this.now() + this.ttlMs;
    const known = this.#positions.get(tenantId);
    this.#positions.delete(tenantId);
    // Re-inserted last: the map stays ordered by expiry, so expired entries are at its head.
    this.#positions.set(tenantId, { lsn: max(known?.lsn, lsn) as bigint, until });
    for (const [key, entry] of this.#positions) {
      if (entry.until > this.now()) break;
      this.#positions.delete(key);
    }
  }

  async get(tenantId: string): Promise<bigint | undefined> {
    const entry = this.#positions.get(tenantId);
    return entry && entry.until > this.now() ? entry.lsn : undefined;
  }

  async close(): Promise<void> {}
}

/** Sets KEYS[1] to ARGV[1] unless it holds a higher position (fixed-width hex compares as text). */
const RECORD_SCRIPT = `local current = redis.call('GET', KEYS[1])
if (not current) or current < ARGV[1] then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1`;

const RECOVERY_INTERVAL_MS = 250;

const encode = (lsn: bigint) => lsn.toString(16).padStart(16, '0');
const keyOf = (tenantId: string) => `wal:${tenantId}`;

/** Options of {@link RedisWritePositions}. */
export interface RedisWritePositionsOptions {
  url: string;
  ttlMs: number;
  /** The primary's WAL position now (`primaryWalPosition`): the floor set after an outage. */
  primaryPosition: () => Promise<bigint>;
  /** Told when the store stops being trusted and when it is trusted again. */
  onState?: (state: 'lost' | 'back', err?: unknown) => void;
}

/**
 * Positions in Redis, shared by every API process. While Redis fails, `get` answers `unknown` and
 * positions that could not be stored wait in memory. Once Redis answers again, they are stored,
 * then the primary's position at that moment becomes a floor under every tenant's position: a
 * write whose position Redis lost (it restarted empty, or this process could not store it)
 * committed before that floor, so a standby past the floor has replayed it. A process starts
 * with the same floor, for positions lost before it started.
 */
export class RedisWritePositions implements WritePositions {
  readonly store = 'redis';
  readonly #redis: Redis;
  readonly #pending = new Map<string, bigint>();
  #floor: bigint | undefined;
  #trusted = false;
  #recovering: Promise<void> | undefined;
  #closed = false;
  #wasTrusted = false;

  constructor(private readonly options: RedisWritePositionsOptions) {
    this.#redis = new Redis(options.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 500,
    });
    this.#redis.on('error', (err: unknown) => this.#distrust(err));
    this.#redis.on('close', () => this.#distrust());
    this.#recover();
  }

  async record(tenantId: string, lsn: bigint): Promise<void> {
    if (this.#trusted) {
      try {
        await this.#store(tenantId, lsn);
        return;
      } catch (err) {
        this.#distrust(err);
      }
    }
    this.#pending.set(tenantId, max(this.#pending.get(tenantId), lsn) as bigint);
  }

  async get(tenantId: string): Promise<bigint | undefined | 'unknown'> {
    if (!this.#trusted) return 'unknown';
    try {
      const stored = await this.#redis.get(keyOf(tenantId));
      return max(stored === null ? undefined : BigInt(`0x${stored}`), this.#floor);
    } catch (err) {
      this.#distrust(err);
      return 'unknown';
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#recovering;
    this.#redis.disconnect();
  }

  #store(tenantId: string, lsn: bigint): Promise<unknown> {
    return this.#redis.eval(RECORD_SCRIPT, 1, keyOf(tenantId), encode(lsn), String(this.options.ttlMs));
  }

  #distrust(err?: unknown): void {
    if (this.#closed) return;
    if (this.#trusted) this.options.onState?.('lost', err);
    this.#trusted = false;
    this.#recover();
  }

  /** Until trusted again: store what waits, then take the floor (retried every 250 ms). */
  #recover(): void {
    if (this.#recovering || this.#closed) return;
    this.#recovering = (async () => {
      while (!this.#trusted && !this.#closed) {
        if (await this.#tryRecover().catch(() => false)) {
          this.#trusted = true;
          if (this.#wasTrusted) this.options.onState?.('back');
          this.#wasTrusted = true;
        } else await new Promise((resolve) => setTimeout(resolve, RECOVERY_INTERVAL_MS).unref());
      }
    })().finally(() => {
      this.#recovering = undefined;
    });
  }

  /** Stores the waiting positions and raises the floor; true when nothing waits any more. */
  async #tryRecover(): Promise<boolean> {
    if (this.#redis.status !== 'ready') return false;
    for (const [tenantId, lsn] of this.#pending) {
      await this.#store(tenantId, lsn);
      if (this.#pending.get(tenantId) === lsn) this.#pending.delete(tenantId);
    }
    this.#floor = max(this.#floor, await this.options.primaryPosition());
    return this.#redis.status === 'ready' && this.#pending.size === 0;
  }
}
