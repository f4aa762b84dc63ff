import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { Agent, type Dispatcher as Dispatcher_ } from 'undici';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import type { Clock } from '../lib/clock.js';
import type { IdSource } from '../lib/ids.js';
import { deliverOne, loadTargets } from './deliver.js';
import { type DeliveryRow, leaseDue } from './deliveries.repo.js';
import { fanOut } from './fan-out.js';
import { guardedConnector, type Resolver } from './ssrf-guard.js';

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
  /** Attempts in flight at once (default 16). */
  concurrency?: number;
  /** Idle wait between polls of the queue (default 200 ms; 1 s when `notifications` wake it). */
  pollIntervalMs?: number;
  /**
   * Subscribes to "an event was committed" signals (the outbox's `NOTIFY`): an idle dispatcher
   * wakes at once instead of at its next poll. Returns the unsubscribe function.
   */
  notifications?: (onEvent: () => void) => Promise<() => Promise<void>>;
  /** How long a claimed attempt stays leased; must exceed the send timeout (default timeout + 60 s). */
  leaseMs?: number;
  random?: () => number;
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
  /** Fans out pending events, sends every due attempt it can claim, and waits: for tests and benchmarks. */
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
  /** Free slots worth a claim: a quarter of them at least (fewer queries under load). */
  readonly #refill: number;
  readonly #pollMs: number;
  readonly #leaseMs: number;
  readonly #log: DispatcherLog;
  readonly #agent: Dispatcher_;
  readonly #ownAgent: boolean;
  readonly #killSwitch = new AbortController();
  readonly #inFlight = new Set<Promise<void>>();
  /** Identifies this dispatcher's leases. */
  readonly #token = randomUUID();
  #running = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #closing: Promise<void> | undefined;
  #backlog = true;
  #lastFanOut = 0;
  /** An event was committed since the last fan-out. */
  #notified = false;
  #unsubscribe: Promise<() => Promise<void>> | undefined;

  constructor(options: DispatcherOptions) {
    this.#options = options;
    this.#concurrency = options.concurrency ?? 16;
    this.#refill = Math.max(1, Math.floor(this.#concurrency / 4));
    this.#pollMs = options.pollIntervalMs ?? (options.notifications ? 1000 : 200);
    this.#leaseMs = options.leaseMs ?? options.webhooks.timeoutMs + 60_000;
    this.#log = options.log ?? noopLog;
    this.#ownAgent = options.agent === undefined;
    this.#agent = options.agent ?? defaultAgent(options);
  }

  start(): void {
    if (this.#running || this.#closing) return;
    this.#running = true;
    this.#unsubscribe = this.#options.notifications?.(() => {
      this.#notified = true;
      this.#wake?.();
    });
    this.#loop = this.#run();
    this.#log.info({ concurrency: this.#concurrency }, 'webhook dispatcher started');
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
    const rows = await this.#claim(1000);
    await Promise.all(await this.#launch(rows));
    return rows.length;
  }

  async #settle(closeAgent: () => Promise<void>): Promise<void> {
    const unsubscribe = await this.#unsubscribe?.catch(() => undefined);
    await unsubscribe?.();
    this.#wake?.();
    await this.#loop;
    await Promise.allSettled([...this.#inFlight]);
    if (this.#ownAgent) await closeAgent();
  }

  async #run(): Promise<void> {
    while (this.#running) {
      try {
        const free = this.#concurrency - this.#inFlight.size;
        let started = 0;
        if (free >= this.#refill || this.#inFlight.size === 0) {
          await this.#maybeFanOut();
          started = (await this.#launch(await this.#claim(free))).length;
        }
        const idle = started === 0 && !this.#notified;
        if (idle || this.#concurrency - this.#inFlight.size < this.#refill) await this.#sleep(this.#pollMs);
      } catch (err) {
        if (!this.#running) break;
        this.#log.error({ err }, 'webhook dispatcher poll failed; retrying');
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

  #claim(limit: number): Promise<DeliveryRow[]> {
    const now = this.#options.clock();
    const leasedUntil = new Date(now.getTime() + this.#leaseMs);
    return leaseDue(this.#options.db, { now, leasedUntil, token: this.#token, limit });
  }

  /** Loads the batch's subscriptions and events in two queries, then starts every send. */
  async #launch(rows: DeliveryRow[]): Promise<Promise<void>[]> {
    const targets = await loadTargets(this.#options.db, rows);
    const deps = { ...this.#options, agent: this.#agent, abort: this.#killSwitch.signal, log: this.#log };
    return rows.map((row) => {
      const task = deliverOne(deps, row, this.#token, targets.get(row.id)).catch((err: unknown) => {
        if (!this.#killSwitch.signal.aborted) {
          this.#log.error({ err, deliveryId: row.id }, 'webhook delivery failed to record');
        }
      });
      this.#inFlight.add(task);
      void task.finally(() => {
        this.#inFlight.delete(task);
        if (this.#concurrency - this.#inFlight.size >= this.#refill) this.#wake?.();
      });
      return task;
    });
  }

  async #sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#wake = undefined;
  }
}
