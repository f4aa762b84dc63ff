import type { TenantShareLimits } from './port.js';

/** Thrown when a tenant's share stays used up for longer than the queue allows. */
export class TenantShareExceeded extends Error {
  override readonly name = 'TenantShareExceeded';
  constructor(
    readonly limit: number,
    readonly retryAfterMs: number,
  ) {
    super(`The tenant already holds its ${limit} database connections.`);
  }
}

interface TenantState {
  held: number;
  waiting: Array<() => void>;
}

/**
 * The bulkhead in front of the database: a tenant's handle (`Database.forTenant`) takes a unit
 * here for each connection it holds, and at most `concurrency` units of one tenant are held at
 * once, so a tenant running expensive statements exhausts its own share, never the pool. Handles
 * of no tenant (webhook dispatch, migrations, the CLI) do not come here. Waiters are served first
 * come, first served within a tenant; a waiter past `queueMs` fails instead of queueing without
 * bound.
 */
export class TenantShare {
  readonly #tenants = new Map<string, TenantState>();

  constructor(readonly limits: TenantShareLimits) {}

  /** Takes one unit of `tenantId`'s share; resolves to its release function (call it once). */
  async acquire(tenantId: string): Promise<() => void> {
    let state = this.#tenants.get(tenantId);
    if (!state) {
      state = { held: 0, waiting: [] };
      this.#tenants.set(tenantId, state);
    }
    // A waiter is handed the unit its releaser held, so `held` never passes the limit.
    if (state.held < this.limits.concurrency) state.held += 1;
    else await this.#wait(state);
    return once(() => this.#release(tenantId, state));
  }

  #wait(state: TenantState): Promise<void> {
    const { concurrency, queueMs } = this.limits;
    return new Promise((resolve, reject) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const index = state.waiting.indexOf(wake);
        if (index >= 0) state.waiting.splice(index, 1);
        reject(new TenantShareExceeded(concurrency, Math.max(queueMs, 1000)));
      }, queueMs);
      state.waiting.push(wake);
    });
  }

  #release(tenantId: string, state: TenantState): void {
    const next = state.waiting.shift();
    if (next) {
      next();
      return;
    }
    state.held -= 1;
    if (state.held === 0) this.#tenants.delete(tenantId);
  }
}

function once(fn: () => void): () => void {
  let called = false;
  return () => {
    if (called) return;
    called = true;
    fn();
  };
}
