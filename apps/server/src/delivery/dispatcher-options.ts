import { Agent, type Dispatcher as Dispatcher_ } from 'undici';
import type { Config } from '../config.js';
import type { Db } from '../db/port.js';
import type { Clock } from '../lib/clock.js';
import type { IdSource } from '../lib/ids.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { guardedConnector, type Resolver } from './ssrf-guard.js';
import type { DeliveryObserver, DispatcherLog } from './types.js';

/** Log methods the dispatcher uses (a pino or Fastify logger fits). */
export type { DispatcherLog } from './types.js';

/** Dependencies and tuning of `createDispatcher` (dispatcher.ts). */
export interface DispatcherOptions {
  /**
   * The database's own handle (`Database.db`): delivering is background work of no tenant, so it
   * holds no tenant's share of connections.
   */
  db: Db;
  clock: Clock;
  ids: IdSource;
  webhooks: Config['webhooks'];
  /** Opens the subscriptions' sealed signing secrets (`secrets/keyring.ts`'s `openSecretBox`). */
  secrets: SecretBox;
  log?: DispatcherLog;
  /** HTTP agent; by default a pooled undici Agent behind the SSRF guard. */
  agent?: Dispatcher_;
  /** DNS resolver of the default agent's SSRF guard. */
  resolve?: Resolver;
  /**
   * Requests open to receivers at once (default `webhooks.concurrency`); up to three times as many
   * attempts are claimed ahead, claims wait for room for twice as many, and a sent attempt stays
   * leased until its outcome is recorded.
   */
  concurrency?: number;
  /**
   * Requests of one tenant open at once (default `webhooks.tenantConcurrency`, at most
   * `concurrency`): a tenant with slow receivers holds no more than this share of the slots.
   */
  tenantConcurrency?: number;
  /** Idle wait between polls of the queue (default 200 ms; 1 s when `notifications` wake it). */
  pollIntervalMs?: number;
  /**
   * Subscribes to "an event was committed" signals (the outbox's `NOTIFY`): an idle dispatcher
   * wakes at once instead of at its next poll. Returns the unsubscribe function.
   */
  notifications?: (onEvent: () => void) => Promise<() => Promise<void>>;
  /**
   * Every statement runs for one tenant: claims, fan-outs and success batches go tenant by tenant,
   * and no claim rides with a batch of successes (decision 0233). By default the dispatcher asks the
   * database when it starts: so on a Citus cluster (the `citus` extension installed), not otherwise.
   */
  byTenant?: boolean;
  random?: () => number;
  /** Told of claims and outcomes (the process's metrics). */
  observer?: DeliveryObserver | undefined;
}

/** A webhook dispatcher: in the server process or alone (`customer-api dispatch`). */
export interface WebhookDispatcher {
  /** Starts polling in the background. */
  start(): void;
  /**
   * Stops claiming, gives back the leases of attempts claimed but not started, and waits for the
   * attempts under way to be sent and recorded (SIGTERM).
   */
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

/** The log of a dispatcher given none: says nothing. */
export const noopLog: DispatcherLog = { info: () => {}, warn: () => {}, error: () => {} };

/** The HTTP agent of a dispatcher given none: pooled, behind the SSRF guard. */
export function defaultAgent(options: DispatcherOptions): Agent {
  return new Agent({
    connect: guardedConnector({
      allowInsecure: options.webhooks.allowInsecure,
      timeoutMs: options.webhooks.timeoutMs,
      ...(options.resolve ? { resolve: options.resolve } : {}),
    }),
    keepAliveTimeout: 4_000,
  });
}
