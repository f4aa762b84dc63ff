import { randomUUID } from 'node:crypto';
import type { Dispatcher as Dispatcher_ } from 'undici';
import { ClaimQueue } from './claim-queue.js';
import { ClaimStep } from './claim-step.js';
import {
  type DispatcherLog,
  type DispatcherOptions,
  defaultAgent,
  noopLog,
  type WebhookDispatcher,
} from './dispatcher-options.js';
import { fanOut } from './fan-out.js';
import { FAN_OUT_BATCH } from './fan-out-runner.js';
import { LeaseReturns } from './lease-returns.js';
import { RetentionSweeper } from './retention.js';
import { SendSlots } from './send-slots.js';
import { SuccessRecorder } from './success-batch.js';
import { ThrottleGate } from './throttle.js';
import { WakeUp } from './wake-up.js';

export type { DispatcherLog, DispatcherOptions, WebhookDispatcher } from './dispatcher-options.js';

/** Creates a dispatcher (not started). */
export function createDispatcher(options: DispatcherOptions): WebhookDispatcher {
  return new Dispatcher(options);
}

/**
 * The loop over the dispatcher's parts: the claim step ({@link ClaimStep}), the sending slots
 * ({@link SendSlots}), the recording of outcomes ({@link SuccessRecorder}, `deliver.ts`) and the
 * wake-up ({@link WakeUp}); and its lifecycle, with the leases it gives back ({@link LeaseReturns}).
 */
class Dispatcher implements WebhookDispatcher {
  readonly #options: DispatcherOptions;
  readonly #concurrency: number;
  readonly #tenantCap: number;
  /** Free room worth a claim: a quarter of the slots at least (fewer queries under load). */
  readonly #refill: number;
  readonly #pollMs: number;
  readonly #log: DispatcherLog;
  readonly #agent: Dispatcher_;
  readonly #ownAgent: boolean;
  readonly #killSwitch = new AbortController();
  /** Identifies this dispatcher's leases. */
  readonly #token = randomUUID();
  /** Attempts leased to this dispatcher, waiting or being sent: the shares claims and sends respect. */
  readonly #queue: ClaimQueue;
  readonly #claims: ClaimStep;
  readonly #slots: SendSlots;
  readonly #successes: SuccessRecorder;
  /** Holds back the attempts of throttled subscriptions until their turn. */
  readonly #throttles: ThrottleGate;
  readonly #leases: LeaseReturns;
  /** A slot freed or an event arrived since the loop last claimed: its next sleep ends at once. */
  readonly #wakeUp = new WakeUp();
  /** Purges what is older than the retention, while running. */
  readonly #retention: RetentionSweeper;
  #running = false;
  #loop: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #unsubscribe: Promise<() => Promise<void>> | undefined;

  constructor(options: DispatcherOptions) {
    this.#options = options;
    this.#concurrency = options.concurrency ?? options.webhooks.concurrency;
    this.#tenantCap = Math.min(
      options.tenantConcurrency ?? options.webhooks.tenantConcurrency,
      this.#concurrency,
    );
    // Three times the slots claimed ahead, so that a freed slot starts its next send at once
    // instead of after a claim's round trip; twice the slots again sent and being recorded, so that
    // outcomes waiting for their batch's commit do not hold back the next sends. A claim waits for
    // room for twice the slots: each pays the fair claim's fixed cost once (decision 0248).
    this.#queue = new ClaimQueue(this.#tenantCap, {
      unsent: 4 * this.#concurrency,
      held: 6 * this.#concurrency,
    });
    this.#refill = 2 * this.#concurrency;
    this.#pollMs = options.pollIntervalMs ?? (options.notifications ? 1000 : 200);
    this.#log = options.log ?? noopLog;
    this.#ownAgent = options.agent === undefined;
    this.#agent = options.agent ?? defaultAgent(options);
    this.#leases = new LeaseReturns(options.db, this.#token, this.#log);
    this.#claims = this.#claimStep();
    // Under load, claims ride with the successes' statements (one round trip and one commit for
    // both); the loop claims when no batch is under way to carry one (idle, or only failures).
    this.#successes = new SuccessRecorder(
      options.db,
      {
        request: (leaving) => this.#claims.rideRequest(leaving),
        done: (claimed) => this.#claims.rideDone(claimed),
      },
      { byTenant: () => this.#claims.byTenant },
    );
    this.#retention = new RetentionSweeper({
      db: options.db,
      clock: options.clock,
      retentionDays: options.webhooks.retentionDays,
      intervalMs: options.webhooks.purgeIntervalS * 1000,
      log: this.#log,
      busy: () => this.#queue.size > 0,
    });
    this.#throttles = this.#throttleGate();
    this.#slots = this.#sendSlots();
  }

  /** The claim step, handing what it claims to the sending slots. */
  #claimStep(): ClaimStep {
    return new ClaimStep({
      options: this.#options,
      log: this.#log,
      token: this.#token,
      leaseMs: this.#options.webhooks.leaseMs,
      tenantCap: this.#tenantCap,
      refill: this.#refill,
      pollMs: this.#pollMs,
      queue: this.#queue,
      running: () => this.#running,
      closing: () => this.#closing !== undefined,
      successesBusy: () => this.#successes.busy,
      enqueue: (claimed) => this.#slots.enqueue(claimed),
      release: (claimed) => this.#leases.release(claimed),
      wake: () => this.#wakeUp.signal(),
    });
  }

  /** The door of claimed attempts: throttled ones wait for their turn before the sending slots. */
  #throttleGate(): ThrottleGate {
    const { db, clock } = this.#options;
    return new ThrottleGate({
      db,
      token: this.#token,
      clock,
      admit: (claimed) => this.#slots.admit(claimed),
      giveBack: (claimed) => this.#leases.release(claimed),
      dueAgain: (at) =>
        this.#wakeUp.signalIn(at.getTime() - clock().getTime(), () => this.#claims.found(false)),
      warn: (err, attempts) =>
        this.#log.warn({ err, attempts }, 'webhook throttle turn failed; leases given back'),
    });
  }

  /** The sending slots, recording outcomes through the success recorder. */
  #sendSlots(): SendSlots {
    const { leaseMs, timeoutMs } = this.#options.webhooks;
    return new SendSlots({
      concurrency: this.#concurrency,
      // The send timeout and half the lease's margin past it, so that its outcome is recorded well
      // before another dispatcher may take it.
      minLeaseLeftMs: timeoutMs + Math.max(0, leaseMs - timeoutMs) / 2,
      clock: this.#options.clock,
      token: this.#token,
      queue: this.#queue,
      deliver: {
        ...this.#options,
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
      freed: () => this.#claims.slotFreed(),
    });
  }

  start(): void {
    if (this.#running || this.#closing) return;
    this.#running = true;
    this.#unsubscribe = this.#options.notifications?.(() => {
      this.#claims.eventArrived();
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
    await this.#claims.prepare();
    while ((await fanOut(this.#options.db, this.#options, FAN_OUT_BATCH, this.#claims.fanOutOptions)) > 0) {}
    this.#claims.rediscover();
    // Attempts that fall due while this runs (retries) are left for the next run.
    const dueBy = this.#options.clock();
    const launched = this.#slots.launched;
    while (!this.#closing) {
      const rows = await this.#claims.claim(this.#queue.room(), dueBy);
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
    await this.#claims.fanOuts.settled();
    const waiting = this.#queue.dropWaiting();
    if (release) await this.#leases.release(waiting);
    await this.#slots.settled();
    await this.#leases.settled();
    if (this.#ownAgent) await closeAgent();
  }

  /** The loop: decide, claim (or be handed over), send, sleep until woken. */
  async #run(): Promise<void> {
    while (this.#running) {
      try {
        await this.#claims.prepare();
        const free = this.#queue.room();
        let short = true;
        if (free >= this.#refill || this.#queue.size === 0) {
          this.#wakeUp.clear();
          if (await this.#handedAll(free)) {
            await this.#wakeUp.sleep(this.#pollMs);
            continue;
          }
          short = await this.#claim(free);
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
   * Idle with nothing due: the new events' attempts are handed over leased (one round trip from
   * the notification to the sends), unless they are more than it can hold. True when all of them
   * were taken: nothing else is due. Otherwise (none made, or more than the room) the claim looks
   * for the rest and for what fell due meanwhile.
   */
  async #handedAll(free: number): Promise<boolean> {
    if (!this.#claims.canHandOver()) return false;
    const handed = await this.#claims.handOver(free);
    return handed !== undefined && handed.claimed.length > 0 && handed.claimed.length === handed.attempts;
  }

  /**
   * Starts a fan-out if one is due and claims up to `free` attempts, unless a claim is under way or
   * successes about to be recorded will carry it (and wake the loop when it is back). True when it
   * took fewer than `free` (or claimed nothing itself): the loop sleeps.
   */
  async #claim(free: number): Promise<boolean> {
    const fanning = this.#claims.fanOuts.run();
    if (this.#claims.claiming || this.#successes.busy) return true;
    // Idle: the new attempts are what the claim is for. Busy: the fan-out runs beside the claims
    // (on another connection) and wakes the loop when it added attempts.
    if (this.#queue.size === 0) await this.#claims.fannedOut(fanning);
    // Fewer than asked for: everything claimable within the shares was claimed, so another claim is
    // worth it only after an event arrives, a fan-out added attempts or (when a tenant's share held
    // it back) a slot frees up: each wakes the loop.
    const taken = this.#slots.enqueue(await this.#claims.claim(free));
    this.#claims.took(taken);
    return taken < free;
  }
}
