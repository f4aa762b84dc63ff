import type { Db } from '../db/port.js';
import { type Claimed, releaseLeases } from './lease.repo.js';
import type { DispatcherLog } from './types.js';

/** Gives back the leases of attempts a dispatcher will not send. */
export class LeaseReturns {
  readonly #db: Db;
  readonly #token: string;
  readonly #log: DispatcherLog;
  /** Leases given back outside the loop (claims that came back while stopping): a stop waits for them. */
  readonly #releasing = new Set<Promise<void>>();

  constructor(db: Db, token: string, log: DispatcherLog) {
    this.#db = db;
    this.#token = token;
    this.#log = log;
  }

  /** Gives back leases of attempts this dispatcher will not send; they run out if this fails. */
  async release(claimed: Claimed[]): Promise<void> {
    // An attempt sent before its rows were written has a lease to give back only once they are.
    const kept = await Promise.all(
      claimed.map((c) => {
        c.written?.start();
        return c.written?.done ?? true;
      }),
    );
    const rows = claimed.filter((_, i) => kept[i]).map((c) => c.row);
    if (rows.length === 0) return;
    await releaseLeases(this.#db, rows, this.#token).catch((err: unknown) => {
      this.#log.warn({ err, attempts: rows.length }, 'webhook leases not released; they run out instead');
    });
  }

  /** Gives back leases no one waits for here (a claim that came back while stopping): {@link settled} does. */
  releaseLater(claimed: Claimed[]): void {
    const released = this.release(claimed);
    this.#releasing.add(released);
    void released.finally(() => this.#releasing.delete(released));
  }

  /** Resolves once every give-back of {@link releaseLater} is done. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#releasing]);
  }
}
