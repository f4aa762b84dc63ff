import { randomUUID } from 'node:crypto';
import { Agent, type Dispatcher as Dispatcher_ } from 'undici';
import { shardsByTenant } from '../db/distribute.js';
import { ClaimQueue } from './claim-queue.js';
import type { DispatcherLog, DispatcherOptions, WebhookDispatcher } from './dispatcher-options.js';
import { type FanOutOptions, fanOut } from './fan-out.js';
import { FAN_OUT_BATCH, FanOutRunner } from './fan-out-runner.js';
import { HAND_OVER_BATCH, type HandedOver, handOver } from './hand-over.js';
import { type Claimed, type LeaseRequest, leaseDueWithTargets } from './lease.repo.js';
import { LeaseReturns } from './lease-returns.js';
import { RetentionSweeper } from './retention.js';
import { SendSlots } from './send-slots.js';
import { guardedConnector } from './ssrf-guard.js';
import { type Leaving, SuccessRecorder } from './success-batch.js';
import { TenantClaims } from './tenant-claims.js';
import { ThrottleGate } from './throttle.js';
import { WakeUp } from './wake-up.js';

export type { DispatcherLog, DispatcherOptions, WebhookDispatcher } from './dispatcher-options.js';

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
  /** Free room worth a claim: a quarter of the slots at least (fewer queries under load). */
  readonly #refill: number;
  readonly #pollMs: number;
  readonly #leaseMs: number;
  readonly #log: DispatcherLog;
  readonly #agent: Dispatcher_;
  readonly #ownAgent: boolean;
  readonly #successes: SuccessRecorder;
  /** A claim is under way (the loop's or one riding with a batch of successes): one at a time. */
  #claiming = false;
  readonly #leases: LeaseReturns;
  readonly #killSwitch = new AbortController();
  readonly #slots: SendSlots;
  /** Attempts leased to this dispatcher, waiting or being sent: the shares claims and sends respect. */
  readonly #queue: ClaimQueue;
  readonly #fanOuts: FanOutRunner;
  /** The claims of a dispatcher on a database sharded by tenant (`byTenant`), else undefined. */
  #tenantClaims: TenantClaims | undefined;
  /** Settles once the dispatcher knows whether the database shards by tenant. */
  #prepared: Promise<void> | undefined;
  readonly #fanOutOptions: FanOutOptions;
  /** Identifies this dispatcher's leases. */
  readonly #token = randomUUID();
  #running = false;
  #loop: Promise<void> | undefined;
  /** A slot freed or an event arrived since the loop last claimed: its next sleep ends at once. */
  readonly #wakeUp = new WakeUp();
  /**
   * The last claim (the loop's or one riding with successes) took nothing while no tenant was at
   * its share: nothing is due, so a freed slot is no reason to claim again; an event, a fan-out that
   * added attempts or the poll interval is. (A claim that took some but fewer than asked may have
   * lost rows to another dispatcher's claim under way: freed slots still lead to claims then.)
   */
  #exhausted = false;
  /**
   * No attempt was left due by the last claim or fan-out: a claim took nothing (as for
   * {@link #exhausted}) and no fan-out added attempts since. Events that arrived since do not
   * change it (their attempts do not exist yet): the loop may then hand them over.
   */
  #nothingDue = false;
  /** The loop is waiting for the fan-out it started itself: its attempts are what its claim takes. */
  #awaitingFanOut = false;
  /** Purges what is older than the retention, while running. */
  readonly #retention: RetentionSweeper;
  /** Holds back the attempts of throttled subscriptions until their turn. */
  readonly #throttles: ThrottleGate;
  #closing: Promise<void> | undefined;
  #unsubscribe: Promise<() => Promise<void>> | undefined;

  constructor(options: DispatcherOptions) {
    this.#options = options;
    this.#concurrency = options.concurrency ?? options.webhooks.concurrency;
    this.#tenantCap = Math.min(
      options.tenantConcurrency ?? options.webhooks.tenantConcurrency,
      this.#concurrency,
    );
    // As many claimed ahead as there are slots, so that a freed slot starts its next send at once
    // instead of after a claim's round trip; as many again sent and being recorded, so that
    // outcomes waiting for their batch's commit do not hold back the next sends.
    this.#queue = new ClaimQueue(this.#tenantCap, {
      unsent: 2 * this.#concurrency,
      held: 4 * this.#concurrency,
    });
    this.#refill = Math.max(1, Math.floor(this.#concurrency / 4));
    this.#pollMs = options.pollIntervalMs ?? (options.notifications ? 1000 : 200);
    this.#leaseMs = options.webhooks.leaseMs;
    const { timeoutMs } = options.webhooks;
    this.#log = options.log ?? noopLog;
    this.#ownAgent = options.agent === undefined;
    this.#agent = options.agent ?? defaultAgent(options);
    this.#leases = new LeaseReturns(options.db, this.#token, this.#log);
    // Under load, claims ride with the successes' statements (one round trip and one commit for
    // both); the loop claims when no batch is under way to carry one (idle, or only failures).
    this.#fanOutOptions = { madeFor: (tenantIds) => this.#tenantClaims?.learn(tenantIds) };
    this.#successes = new SuccessRecorder(
      options.db,
      {
        request: (leaving) => this.#rideRequest(leaving),
        done: (claimed) => this.#rideDone(claimed),
      },
      { byTenant: () => this.#tenantClaims !== undefined },
    );
    this.#retention = new RetentionSweeper({
      db: options.db,
      clock: options.clock,
      retentionDays: options.webhooks.retentionDays,
      log: this.#log,
    });
    this.#throttles = new ThrottleGate({
      db: options.db,
      token: this.#token,
      clock: options.clock,
      admit: (claimed) => this.#slots.admit(claimed),
      giveBack: (claimed) => this.#leases.release(claimed),
      dueAgain: (at) =>
        this.#wakeUp.signalIn(at.getTime() - options.clock().getTime(), () => this.#claimFound(false)),
      warn: (err, attempts) =>
        this.#log.warn({ err, attempts }, 'webhook throttle turn failed; leases given back'),
    });
    this.#fanOuts = new FanOutRunner({
      ...options,
      log: this.#log,
      pollMs: this.#pollMs,
      fanOut: this.#fanOutOptions,
      onAttempts: () => this.#attemptsAdded(),
      running: () => this.#running,
    });
    this.#slots = new SendSlots({
      concurrency: this.#concurrency,
      // The send timeout and half the lease's margin past it, so that its outcome is recorded well
      // before another dispatcher may take it.
      minLeaseLeftMs: timeoutMs + Math.max(0, this.#leaseMs - timeoutMs) / 2,
      clock: options.clock,
      token: this.#token,
      queue: this.#queue,
      deliver: {
        ...options,
        agent: this.#agent,
        abort: this.#killSwitch.signal,
        log: this.#log,
        successes: this.#successes,
      },
      log: this.#log,
      pass: (claimed) => this.#throttles.pass(claimed),
      closing: () => this.#closing !== undefined,
      killed: () => this.#killSwitch.signal.aborted,
      release: (claimed) => this.#leases.release(claimed),
      releaseLater: (claimed) => this.#leases.releaseLater(claimed),
      freed: () => this.#slotFreed(),
    });
  }

  start(): void {
    if (this.#running || this.#closing) return;
    this.#running = true;
    this.#unsubscribe = this.#options.notifications?.(() => {
      this.#fanOuts.notify();
      this.#exhausted = false;
      this.#wakeUp.signal();
    });
    this.#loop = this.#run();
    this.#retention.start();
    this.#log.info(
      { concurrency: this.#concurrency, tenantConcurrency: this.#tenantCap },
      'webhook dispatcher started',
    );
  }

  stop(): Promise<void> {
    this.#running = false;
    this.#closing ??= this.#settle(true, () => this.#agent.close());
    return this.#closing;
  }

  kill(): Promise<void> {
    this.#running = false;
    this.#killSwitch.abort();
    this.#closing ??= this.#settle(false, () => this.#agent.destroy());
    return this.#closing;
  }

  async runOnce(): Promise<number> {
    await this.#prepare();
    while ((await fanOut(this.#options.db, this.#options, FAN_OUT_BATCH, this.#fanOutOptions)) > 0) {}
    this.#tenantClaims?.rediscover();
    // Attempts that fall due while this runs (retries) are left for the next run.
    const dueBy = this.#options.clock();
    const launched = this.#slots.launched;
    while (!this.#closing) {
      const rows = await this.#claim(this.#queue.room(), dueBy);
      this.#slots.enqueue(rows);
      if (this.#slots.idle) break;
      // Full, or every tenant with due attempts is at its share: wait for a slot to free up.
      if (rows.length === 0 || this.#queue.room() <= 0) await this.#slots.oneSettled();
    }
    return this.#slots.launched - launched;
  }

  /** Ends a run: a stop gives back the leases of attempts claimed ahead, a kill leaves them to run out. */
  async #settle(release: boolean, closeAgent: () => Promise<void>): Promise<void> {
    const unsubscribe = await this.#unsubscribe?.catch(() => undefined);
    await unsubscribe?.();
    this.#wakeUp.signal();
    await this.#loop;
    this.#wakeUp.cancel();
    await this.#retention.stop();
    await this.#fanOuts.settled();
    const waiting = this.#queue.dropWaiting();
    if (release) await this.#leases.release(waiting);
    await this.#slots.settled();
    await this.#leases.settled();
    if (this.#ownAgent) await closeAgent();
  }

  /** Finds out, once, whether the database shards by tenant (unless `byTenant` says). */
  #prepare(): Promise<void> {
    this.#prepared ??= (async () => {
      const byTenant = this.#options.byTenant ?? (await shardsByTenant(this.#options.db));
      if (!byTenant) return;
      this.#fanOutOptions.byTenant = true;
      this.#tenantClaims = new TenantClaims(this.#options.db, {
        discoverMs: this.#pollMs,
        now: () => this.#options.clock().getTime(),
      });
    })().catch((err: unknown) => {
      this.#prepared = undefined;
      throw err;
    });
    return this.#prepared;
  }

  async #run(): Promise<void> {
    while (this.#running) {
      try {
        await this.#prepare();
        const free = this.#queue.room();
        let short = true;
        if (free >= this.#refill || this.#queue.size === 0) {
          this.#wakeUp.clear();
          // Idle with nothing due: the new events' attempts are handed over leased (one round trip
          // from the notification to the sends), unless they are more than it can hold.
          if (this.#canHandOver()) {
            const handed = await this.#handOver(free);
            // All of them taken: nothing else is due. Otherwise (none made, or more than the room)
            // the claim below looks for the rest and for what fell due meanwhile.
            if (handed && handed.claimed.length > 0 && handed.claimed.length === handed.attempts) {
              await this.#wakeUp.sleep(this.#pollMs);
              continue;
            }
          }
          const fanning = this.#fanOuts.run();
          // A claim under way, or successes about to be recorded, whose statement will carry the
          // next claim (and wake the loop when it is back): no claim of the loop's own meanwhile.
          if (!this.#claiming && !this.#successes.busy) {
            // Idle: the new attempts are what the claim is for. Busy: the fan-out runs beside the
            // claims (on another connection) and wakes the loop when it added attempts.
            if (this.#queue.size === 0) await this.#fannedOut(fanning);
            // Fewer than asked for: everything claimable within the shares was claimed, so another
            // claim is worth it only after an event arrives, a fan-out added attempts or (when a
            // tenant's share held it back) a slot frees up: each wakes the loop.
            const taken = this.#slots.enqueue(await this.#claim(free));
            short = taken < free;
            this.#claimFound(this.#tookNothing(taken));
          }
        }
        if (short || this.#queue.room() < this.#refill) await this.#wakeUp.sleep(this.#pollMs);
      } catch (err) {
        if (!this.#running) break;
        this.#log.error({ err }, 'webhook dispatcher poll failed; retrying');
        this.#wakeUp.clear();
        await this.#wakeUp.sleep(this.#pollMs * 5);
      }
    }
  }

  /**
   * The loop may hand over: it holds nothing, its last claim found nothing due (no older attempt
   * waits), no claim or success batch is under way, and a fan-out is due.
   */
  #canHandOver(): boolean {
    return (
      !this.#tenantClaims &&
      this.#nothingDue &&
      this.#queue.size === 0 &&
      !this.#claiming &&
      !this.#successes.busy &&
      this.#fanOuts.due
    );
  }

  /** Fans out the oldest queued events and takes their attempts, leased, as its claim. */
  async #handOver(free: number): Promise<HandedOver | undefined> {
    this.#claiming = true;
    this.#awaitingFanOut = true;
    try {
      const now = this.#options.clock();
      const handed = await this.#fanOuts.runOwn(async () => ({
        ...(await handOver(this.#options.db, this.#options, {
          token: this.#token,
          leasedUntil: new Date(now.getTime() + this.#leaseMs),
          limit: free,
          tenantCap: 2 * this.#tenantCap,
        })),
        batch: HAND_OVER_BATCH,
      }));
      if (handed) {
        this.#options.observer?.claimed(handed.claimed.length);
        // All taken: still nothing else due. Some left unleased: claims are worth making.
        this.#claimFound(handed.attempts === handed.claimed.length);
        if (!this.#closing) this.#slots.enqueue(handed.claimed);
        else await this.#leases.release(handed.claimed);
      }
      return handed;
    } finally {
      this.#awaitingFanOut = false;
      this.#claiming = false;
    }
  }

  /** Waits for a fan-out the loop's next claim is for; the attempts it adds need no wake-up. */
  async #fannedOut(fanning: Promise<void>): Promise<void> {
    this.#awaitingFanOut = true;
    try {
      await fanning;
    } finally {
      this.#awaitingFanOut = false;
    }
  }

  /** What a claim (or hand-over) found: whether nothing is left due ({@link #exhausted}, {@link #nothingDue}). */
  #claimFound(nothingDue: boolean): void {
    this.#exhausted = nothingDue;
    this.#nothingDue = nothingDue;
  }

  /** A fan-out added attempts: claims are worth making again. */
  #attemptsAdded(): void {
    this.#claimFound(false);
    if (!this.#awaitingFanOut) this.#wakeUp.signal();
  }

  /** A claim took nothing, and not because a tenant holds as many unsent attempts as a claim lets it. */
  #tookNothing(taken: number): boolean {
    return taken === 0 && this.#queue.busiestTenant() < 2 * this.#tenantCap;
  }

  /** A slot freed or an attempt settled: the loop claims again unless nothing else is due. */
  #slotFreed(): void {
    if (!this.#exhausted && this.#queue.room() >= this.#refill) this.#wakeUp.signal();
  }

  /** Leases due attempts with what they are sent to and send (one round trip). */
  async #claim(limit: number, dueBy?: Date): Promise<Claimed[]> {
    this.#claiming = true;
    try {
      const request = this.#leaseRequest(limit, dueBy);
      const rows = this.#tenantClaims
        ? await this.#tenantClaims.claim(request)
        : await leaseDueWithTargets(this.#options.db, request);
      this.#options.observer?.claimed(rows.length);
      return rows;
    } finally {
      this.#claiming = false;
    }
  }

  /** A claim of up to `limit` attempts, within the shares of what waits or is being sent. */
  #leaseRequest(limit: number, dueBy?: Date): LeaseRequest {
    const now = this.#options.clock();
    return {
      now: dueBy ?? now,
      leasedUntil: new Date(now.getTime() + this.#leaseMs),
      token: this.#token,
      limit,
      // Each tenant may hold as many attempts ahead as it may send at once.
      tenantCap: 2 * this.#tenantCap,
      inFlight: this.#queue.holdings(),
    };
  }

  /**
   * The claim to make with a batch of successes: the room the batch leaves, when that is worth a
   * claim and no other claim is under way; none while stopping or in {@link runOnce}.
   */
  #rideRequest(leaving: readonly Leaving[]): LeaseRequest | undefined {
    if (!this.#running || this.#closing || this.#claiming) return undefined;
    const free = this.#queue.room(leaving.length);
    if (free < this.#refill) return undefined;
    this.#claiming = true;
    return this.#leaseRequest(free);
  }

  /** A ride-along claim came back (undefined: its statement failed, nothing was leased). */
  #rideDone(claimed: Claimed[] | undefined): void {
    this.#claiming = false;
    if (claimed) {
      this.#claimFound(this.#tookNothing(claimed.length));
      this.#options.observer?.claimed(claimed.length);
      this.#slots.enqueue(claimed);
    }
    // The loop left its own claim to this one; it looks again unless nothing was due.
    if (!this.#exhausted || !claimed) this.#wakeUp.signal();
  }
}
