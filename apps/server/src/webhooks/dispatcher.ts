import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { Agent, type Dispatcher as Dispatcher_ } from 'undici';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import type { Clock } from '../lib/clock.js';
import type { IdSource } from '../lib/ids.js';
import { type DeliverDeps, type DeliveryObserver, deliverOne } from './deliver.js';
import type { DeliveryRow } from './deliveries.repo.js';
import { fanOut } from './fan-out.js';
import { type Claimed, type InFlight, leaseDueWithTargets } from './lease.repo.js';
import { guardedConnector, type Resolver } from './ssrf-guard.js';
import { SuccessRecorder } from './success-batch.js';

/** Log methods the dispatcher uses (a pino or Fastify logger fits). */
export type DispatcherLog = Pick<Logger, 'info' | 'warn' | 'error'>;

/** Dependencies and tuning of {@link createDispatcher}. */
export interface DispatcherOptions {
  db: Db;
  clock: Clock;
  ids: IdSource;
  webhooks: Config['webhooks'];
  log?: DispatcherLog;
  /** HTTP agent; by default a pooled undici Agent behind the SSRF guard. */
  agent?: Dispatcher_;
  /** DNS resolver of the default agent's SSRF guard. */
  resolve?: Resolver;
  /** Attempts in flight at once (default `webhooks.concurrency`). */
  concurrency?: number;
  /**
   * Attempts of one tenant in flight at once (default `webhooks.tenantConcurrency`, at most
   * `concurrency`): a tenant with slow receivers holds no more than this share.
   */
  tenantConcurrency?: number;
  /** Idle wait between polls of the queue (default 200 ms; 1 s when `notifications` wake it). */
  pollIntervalMs?: number;
  /**
   * Subscribes to "an event was committed" signals (the outbox's `NOTIFY`): an idle dispatcher
   * wakes at once instead of at its next poll. Returns the unsubscribe function.
   */
  notifications?: (onEvent: () => void) => Promise<() => Promise<void>>;
  random?: () => number;
  /** Told of claims and outcomes (the process's metrics). */
  observer?: DeliveryObserver | undefined;
}

/** A webhook dispatcher: in the server process or alone (`customer-api dispatch`). */
export interface WebhookDispatcher {
  /** Starts polling in the background. */
  start(): void;
  /** Stops claiming, waits for in-flight attempts to be sent and recorded (SIGTERM). */
  stop(): Promise<void>;
  /**
   * Simulates a crash: aborts in-flight sends and records nothing, leaving their leases to run
   * out so that another dispatcher sends them again.
   */
  kill(): Promise<void>;
  /**
   * Fans out pending events, then sends every attempt due now, within the same shares as a running
   * dispatcher, and waits for them: for tests and benchmarks. Returns the attempts sent.
   */
  runOnce(): Promise<number>;
}

/** Events fanned out per transaction. */
const FAN_OUT_BATCH = 200;

const noopLog: DispatcherLog = { info: () => {}, warn: () => {}, error: () => {} };

/** Creates a dispatcher (not started). */
export function createDispatcher(options: DispatcherOptions): WebhookDispatcher {
  return new Dispatcher(options);
}

function defaultAgent(options: DispatcherOptions): Agent {
  return new Agent({
    connect: guardedConnector({
      allowInsecure: options.webhooks.allowInsecure,
      timeoutMs: options.webhooks.timeoutMs,
      ...(options.resolve ? { resolve: options.resolve } : {}),
    }),
    keepAliveTimeout: 4_000,
  });
}

class Dispatcher implements WebhookDispatcher {
  readonly #options: DispatcherOptions;
  readonly #concurrency: number;
  readonly #tenantCap: number;
  /** Free slots worth a claim: a quarter of them at least (fewer queries under load). */
  readonly #refill: number;
  readonly #pollMs: number;
  readonly #leaseMs: number;
  readonly #log: DispatcherLog;
  readonly #agent: Dispatcher_;
  readonly #ownAgent: boolean;
  readonly #deliverDeps: DeliverDeps;
  readonly #killSwitch = new AbortController();
  readonly #inFlight = new Set<Promise<void>>();
  /** This dispatcher's attempts in flight per subscription: the shares the claim respects. */
  readonly #busy = new Map<string, InFlight>();
  /** Identifies this dispatcher's leases. */
  readonly #token = randomUUID();
  #running = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  /** A slot freed or an event arrived since the loop last claimed: its next sleep ends at once. */
  #woken = false;
  #closing: Promise<void> | undefined;
  #backlog = true;
  #lastFanOut = 0;
  /** An event was committed since the last fan-out. */
  #notified = false;
  #unsubscribe: Promise<() => Promise<void>> | undefined;

  constructor(options: DispatcherOptions) {
    this.#options = options;
    this.#concurrency = options.concurrency ?? options.webhooks.concurrency;
    this.#tenantCap = Math.min(
      options.tenantConcurrency ?? options.webhooks.tenantConcurrency,
      this.#concurrency,
    );
    this.#refill = Math.max(1, Math.floor(this.#concurrency / 4));
    this.#pollMs = options.pollIntervalMs ?? (options.notifications ? 1000 : 200);
    this.#leaseMs = options.webhooks.leaseMs;
    this.#log = options.log ?? noopLog;
    this.#ownAgent = options.agent === undefined;
    this.#agent = options.agent ?? defaultAgent(options);
    this.#deliverDeps = {
      ...options,
      agent: this.#agent,
      abort: this.#killSwitch.signal,
      log: this.#log,
      successes: new SuccessRecorder(options.db),
    };
  }

  start(): void {
    if (this.#running || this.#closing) return;
    this.#running = true;
    this.#unsubscribe = this.#options.notifications?.(() => {
      this.#notified = true;
      this.#signal();
    });
    this.#loop = this.#run();
    this.#log.info(
      { concurrency: this.#concurrency, tenantConcurrency: this.#tenantCap },
      'webhook dispatcher started',
    );
  }

  stop(): Promise<void> {
    this.#running = false;
    this.#closing ??= this.#settle(() => this.#agent.close());
    return this.#closing;
  }

  kill(): Promise<void> {
    this.#running = false;
    this.#killSwitch.abort();
    this.#closing ??= this.#settle(() => this.#agent.destroy());
    return this.#closing;
  }

  async runOnce(): Promise<number> {
    while ((await fanOut(this.#options.db, this.#options, FAN_OUT_BATCH)) > 0) {}
    // Attempts that fall due while this runs (retries) are left for the next run.
    const dueBy = this.#options.clock();
    let sent = 0;
    for (;;) {
      const rows = await this.#claim(this.#concurrency - this.#inFlight.size, dueBy);
      sent += rows.length;
      this.#launch(rows);
      if (this.#inFlight.size === 0) return sent;
      // Full, or every tenant with due attempts is at its share: wait for a slot to free up.
      if (rows.length === 0) await Promise.race(this.#inFlight);
    }
  }

  async #settle(closeAgent: () => Promise<void>): Promise<void> {
    const unsubscribe = await this.#unsubscribe?.catch(() => undefined);
    await unsubscribe?.();
    this.#signal();
    await this.#loop;
    await Promise.allSettled([...this.#inFlight]);
    if (this.#ownAgent) await closeAgent();
  }

  async #run(): Promise<void> {
    while (this.#running) {
      try {
        const free = this.#concurrency - this.#inFlight.size;
        let short = true;
        if (free >= this.#refill || this.#inFlight.size === 0) {
          this.#woken = false;
          await this.#maybeFanOut();
          // Fewer than asked for: everything claimable within the shares was claimed, so another
          // claim is worth it only after a slot frees up or an event arrives (both wake the loop).
          short = this.#launch(await this.#claim(free)).length < free;
        }
        const idle = short && !this.#notified && !this.#backlog;
        if (idle || this.#concurrency - this.#inFlight.size < this.#refill) await this.#sleep(this.#pollMs);
      } catch (err) {
        if (!this.#running) break;
        this.#log.error({ err }, 'webhook dispatcher poll failed; retrying');
        this.#woken = false;
        await this.#sleep(this.#pollMs * 5);
      }
    }
  }

  /**
   * Fans out new events at most once per poll interval, or at once while a backlog remains or
   * after a notification.
   */
  async #maybeFanOut(): Promise<void> {
    if (!this.#backlog && !this.#notified && Date.now() - this.#lastFanOut < this.#pollMs) return;
    this.#lastFanOut = Date.now();
    this.#notified = false;
    this.#backlog = (await fanOut(this.#options.db, this.#options, FAN_OUT_BATCH)) >= FAN_OUT_BATCH;
  }

  /** Leases due attempts with what they are sent to and send (one round trip). */
  #claim(limit: number, dueBy?: Date): Promise<Claimed[]> {
    const now = this.#options.clock();
    return leaseDueWithTargets(this.#options.db, {
      now: dueBy ?? now,
      leasedUntil: new Date(now.getTime() + this.#leaseMs),
      token: this.#token,
      limit,
      tenantCap: this.#tenantCap,
      inFlight: [...this.#busy.values()],
    }).then((rows) => {
      this.#options.observer?.claimed(rows.length);
      return rows;
    });
  }

  /** Starts every claimed send; each holds its slot until its outcome is recorded. */
  #launch(claimed: Claimed[]): Promise<void>[] {
    return claimed.map(({ row, target }) => {
      const release = this.#hold(row);
      const task = deliverOne(this.#deliverDeps, row, this.#token, target).catch((err: unknown) => {
        if (!this.#killSwitch.signal.aborted) {
          this.#log.error({ err, deliveryId: row.id }, 'webhook delivery failed to record');
        }
      });
      this.#inFlight.add(task);
      void task.finally(() => {
        this.#inFlight.delete(task);
        release();
        if (this.#concurrency - this.#inFlight.size >= this.#refill) this.#signal();
      });
      return task;
    });
  }

  /** Counts an attempt against its subscription's (and so its tenant's) share until released. */
  #hold(row: DeliveryRow): () => void {
    const entry = this.#busy.get(row.subscriptionId) ?? {
      tenantId: row.tenantId,
      subscriptionId: row.subscriptionId,
      count: 0,
    };
    entry.count += 1;
    this.#busy.set(row.subscriptionId, entry);
    return () => {
      entry.count -= 1;
      if (entry.count === 0) this.#busy.delete(row.subscriptionId);
    };
  }

  #signal(): void {
    this.#woken = true;
    this.#wake?.();
  }

  async #sleep(ms: number): Promise<void> {
    if (this.#woken) {
      this.#woken = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#wake = undefined;
    this.#woken = false;
  }
}
