import { performance } from 'node:perf_hooks';

/** Event-loop time one turn of a {@link TurnQueue} may take, by default. */
export const TURN_BUDGET_MS = 1;

/**
 * Runs tasks that may fall due by the thousand at once (sockets to close or to answer when their
 * timeouts expire together) a slice per turn of the event loop: each turn runs tasks until
 * `budgetMs` have passed (at least one task), then yields with `setImmediate`, so other requests'
 * I/O runs between the slices. A burst of ten thousand closes cost the event loop about 10 ms per
 * turn when they went 256 at a time; with a budget, every other request waits for one slice at most.
 */
export class TurnQueue {
  readonly #tasks: (() => void)[] = [];
  #scheduled = false;
  /** Time {@link runNowOrLater} spent in the current turn of the event loop. */
  #spentNow = 0;
  #spentReset = false;
  readonly #budgetMs: number;
  readonly #now: () => number;

  constructor(budgetMs = TURN_BUDGET_MS, now: () => number = () => performance.now()) {
    this.#budgetMs = budgetMs;
    this.#now = now;
  }

  /** Tasks waiting for a turn. */
  get size(): number {
    return this.#tasks.length;
  }

  /** Runs `task` in a later turn of the event loop (never in the caller's). A task must not throw. */
  run(task: () => void): void {
    this.#tasks.push(task);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.#drain());
  }

  /**
   * Runs `task` at once while nothing waits and this turn's budget is not spent (a lone error is
   * answered in the turn it happened, before anything else is written to its socket); otherwise as
   * {@link run} does.
   */
  runNowOrLater(task: () => void): void {
    if (this.#tasks.length > 0 || this.#spentNow >= this.#budgetMs) {
      this.run(task);
      return;
    }
    const start = this.#now();
    runAlone(task);
    this.#spentNow += this.#now() - start;
    if (!this.#spentReset) {
      this.#spentReset = true;
      setImmediate(() => {
        this.#spentNow = 0;
        this.#spentReset = false;
      });
    }
  }

  #drain(): void {
    const start = this.#now();
    let done = 0;
    while (done < this.#tasks.length) {
      const task = this.#tasks[done] as () => void;
      done += 1;
      runAlone(task);
      if (this.#now() - start >= this.#budgetMs) break;
    }
    this.#tasks.splice(0, done);
    if (this.#tasks.length > 0) setImmediate(() => this.#drain());
    else this.#scheduled = false;
  }
}

/** Runs `task`; its failure is its own (a socket already gone): the tasks after it still run. */
function runAlone(task: () => void): void {
  try {
    task();
  } catch {}
}
