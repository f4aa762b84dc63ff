import type { Db } from '../db/port.js';
import type { Clock } from '../lib/clock.js';
import type { IdSource } from '../lib/ids.js';
import { type FanOutOptions, fanOut } from './fan-out.js';
import type { DispatcherLog } from './types.js';

/** Events fanned out per statement. */
export const FAN_OUT_BATCH = 200;

/** What {@link FanOutRunner} needs. */
export interface FanOutRunnerOptions {
  db: Db;
  clock: Clock;
  ids: IdSource;
  log: DispatcherLog;
  /** Least time between fan-outs when nothing says there is more to do. */
  pollMs: number;
  /** How each fan-out runs (`fanOut`'s options). */
  fanOut?: FanOutOptions;
  /** Told when a fan-out added attempts (the claim loop wakes). */
  onAttempts: () => void;
  /** False once the dispatcher stops: no further batch starts on its own. */
  running: () => boolean;
}

/**
 * When a running dispatcher fans out: at most once per poll interval, at once after a
 * notification, and batch after batch while a backlog remains; one fan-out at a time, beside the
 * claims (on its own connection), so that a backlog of events never holds up sending.
 */
export class FanOutRunner {
  readonly #o: FanOutRunnerOptions;
  #running: Promise<void> | undefined;
  #backlog = true;
  #notified = false;
  #last = 0;

  constructor(options: FanOutRunnerOptions) {
    this.#o = options;
  }

  /** An event was committed: the next {@link run} fans out whatever the interval. */
  notify(): void {
    this.#notified = true;
  }

  /** A fan-out would start now: none is under way, and an event arrived, a backlog remains or the interval passed. */
  get due(): boolean {
    return !this.#running && (this.#backlog || this.#notified || Date.now() - this.#last >= this.#o.pollMs);
  }

  /** Starts a fan-out if one is due; resolves when the current one (if any) is done. Never rejects. */
  run(): Promise<void> {
    if (this.#running) return this.#running;
    if (!this.due) return Promise.resolve();
    return this.runOwn(async () => {
      const events = await fanOut(this.#o.db, this.#o, FAN_OUT_BATCH, this.#o.fanOut);
      return { events, batch: FAN_OUT_BATCH };
    }).then(() => undefined);
  }

  /**
   * Runs `work`, a fan-out (this runner's own, or the dispatcher's hand-over), as the one fan-out
   * under way; resolves to its answer, or undefined when it failed (logged). Events are left queued
   * when it took `batch` of them or says `more`. Call it only when {@link due}.
   */
  runOwn<T extends { events: number; batch: number; more?: boolean }>(
    work: () => Promise<T>,
  ): Promise<T | undefined> {
    this.#last = Date.now();
    this.#notified = false;
    let answer: T | undefined;
    const batch = work().then(
      (done) => {
        answer = done;
        this.#backlog = done.more ?? done.events >= done.batch;
        if (done.events > 0) this.#o.onAttempts();
      },
      (err: unknown) => {
        this.#backlog = false;
        if (this.#o.running()) this.#o.log.error({ err }, 'webhook fan-out failed; retrying');
      },
    );
    this.#running = batch.finally(() => {
      this.#running = undefined;
      if (this.#backlog && this.#o.running()) void this.run();
    });
    return this.#running.then(() => answer);
  }

  /** Resolves once no fan-out runs (a stopping dispatcher waits for it). */
  async settled(): Promise<void> {
    while (this.#running) await this.#running;
  }
}
