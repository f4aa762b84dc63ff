import type { Lane } from './json-stream.js';

/** One tenant's share of the bandwidth of large responses. */
export interface BandwidthLimits {
  /** Sustained rate of a tenant's large responses, in bytes per second. */
  bytesPerSecond: number;
  /** Bytes a tenant may send at once after a quiet spell. */
  burstBytes: number;
  /** Large responses of one tenant sent at the same time. */
  streams: number;
  /** Large responses of one tenant waiting for their turn; one more is refused. */
  waiting: number;
}

interface TenantState {
  active: number;
  queue: Array<() => void>;
  tokens: number;
  at: number;
}

/**
 * Per-tenant lanes for large responses: `streams` at once, `waiting` more in line, and a token
 * bucket in bytes paced to `bytesPerSecond` once `burstBytes` is spent. A tenant reading
 * megabytes in a loop gets them at its rate, and its requests beyond the line are refused,
 * instead of the server's CPU going to serialising its bodies.
 */
export class TenantBandwidth {
  readonly #tenants = new Map<string, TenantState>();

  constructor(
    readonly limits: BandwidthLimits,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A lane for one large response of `tenantId`; undefined when its line is full. */
  enter(tenantId: string): Lane | undefined {
    if (this.isFull(tenantId)) return undefined;
    const state = this.#state(tenantId);
    let ready: Promise<void>;
    if (state.active < this.limits.streams) {
      state.active += 1;
      ready = Promise.resolve();
    } else {
      ready = new Promise((resolve) => state.queue.push(resolve));
    }
    let ended = false;
    return {
      ready,
      spend: (bytes) => this.#spend(state, bytes),
      end: () => {
        if (ended) return;
        ended = true;
        void ready.then(() => this.#leave(state));
      },
    };
  }

  /** Large responses of `tenantId` streaming or in line. */
  inLine(tenantId: string): number {
    const state = this.#tenants.get(tenantId);
    return state ? state.active + state.queue.length : 0;
  }

  /** Whether `tenantId`'s line is full: {@link enter} would refuse. */
  isFull(tenantId: string): boolean {
    return this.inLine(tenantId) >= this.limits.streams + this.limits.waiting;
  }

  /** Seconds until a full line frees a place, about: for a 429's `Retry-After`. */
  retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.limits.burstBytes / this.limits.bytesPerSecond));
  }

  #state(tenantId: string): TenantState {
    let state = this.#tenants.get(tenantId);
    if (!state) {
      if (this.#tenants.size >= 10_000) this.#prune();
      state = { active: 0, queue: [], tokens: this.limits.burstBytes, at: this.now() };
      this.#tenants.set(tenantId, state);
    }
    return state;
  }

  #spend(state: TenantState, bytes: number): number {
    const now = this.now();
    const { bytesPerSecond, burstBytes } = this.limits;
    state.tokens = Math.min(burstBytes, state.tokens + ((now - state.at) * bytesPerSecond) / 1000) - bytes;
    state.at = now;
    return state.tokens >= 0 ? 0 : Math.ceil((-state.tokens * 1000) / bytesPerSecond);
  }

  #leave(state: TenantState): void {
    const next = state.queue.shift();
    if (next)
      next(); // the place passes on: `active` stays
    else state.active -= 1;
  }

  /** Forgets idle tenants whose bucket has refilled (their state is the initial one). */
  #prune(): void {
    const now = this.now();
    for (const [tenantId, state] of this.#tenants) {
      const refilled = state.tokens + ((now - state.at) * this.limits.bytesPerSecond) / 1000;
      if (state.active === 0 && state.queue.length === 0 && refilled >= this.limits.burstBytes) {
        this.#tenants.delete(tenantId);
      }
    }
  }
}
