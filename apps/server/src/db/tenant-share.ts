import { AsyncLocalStorage } from 'node:async_hooks';

/** Limits of one tenant's share of the database. */
export interface TenantShareLimits {
  /** Connections (PostgreSQL) or statements (PGlite) one tenant may hold at once. */
  concurrency: number;
  /** How long a checkout waits for the tenant's share before it fails with {@link TenantShareExceeded}. */
  queueMs: number;
}

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
 * The bulkhead in front of the database: work started inside {@link TenantShare.run} counts
 * against that tenant, and at most `concurrency` checkouts of one tenant are held at once, so a
 * tenant running expensive statements exhausts its own share, never the pool. Work outside any
 * tenant (webhook dispatch, migrations, the CLI) is not limited. Waiters are served first come,
 * first served within a tenant; a waiter past `queueMs` fails instead of queueing without bound.
 */
export class TenantShare {
  readonly #context = new AsyncLocalStorage<string>();
  readonly #tenants = new Map<string, TenantState>();

  constructor(readonly limits: TenantShareLimits) {}

  /** Runs `fn` (and everything it starts) on behalf of `tenantId`. */
  run<T>(tenantId: string, fn: () => T): T {
    return this.#context.run(tenantId, fn);
  }

  /**
   * Takes one unit of the current tenant's share; resolves to its release function (call it
   * once). Outside a tenant it resolves at once to a no-op.
   */
  async acquire(): Promise<() => void> {
    const tenantId = this.#context.getStore();
    if (tenantId === undefined) return noop;
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

function noop(): void {}

function once(fn: () => void): () => void {
  let called = false;
  return () => {
    if (called) return;
    called = true;
    fn();
  };
}
