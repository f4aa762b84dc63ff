import { shardsByTenant } from '../db/distribute.js';
import type { ClaimQueue } from './claim-queue.js';
import type { DispatcherOptions } from './dispatcher-options.js';
import type { FanOutOptions } from './fan-out.js';
import { FanOutRunner } from './fan-out-runner.js';
import { HAND_OVER_BATCH, type HandedOver, handOver } from './hand-over.js';
import { sendFirstHandOver } from './hand-over-lease.js';
import { type Claimed, type LeaseRequest, leaseDueWithTargets } from './lease.repo.js';
import type { Leaving } from './success-batch.js';
import { TenantClaims } from './tenant-claims.js';
import type { DispatcherLog } from './types.js';

/** What {@link ClaimStep} works with: the dispatcher's tuning, its queue and its other parts. */
export interface ClaimStepDeps {
  options: DispatcherOptions;
  log: DispatcherLog;
  /** Identifies this dispatcher's leases. */
  token: string;
  leaseMs: number;
  tenantCap: number;
  /** Free room worth a claim. */
  refill: number;
  pollMs: number;
  queue: ClaimQueue;
  /** The dispatcher runs (started, not stopping). */
  running: () => boolean;
  /** The dispatcher is stopping or killed. */
  closing: () => boolean;
  /** A batch of successes is about to be recorded (its statement will carry the next claim). */
  successesBusy: () => boolean;
  /** Holds claimed attempts and starts what there are slots for; returns how many it took. */
  enqueue: (claimed: Claimed[]) => number;
  /** Gives back the leases of attempts this dispatcher will not send. */
  release: (claimed: Claimed[]) => Promise<void>;
  /** Ends the loop's sleep. */
  wake: () => void;
}

/**
 * The claim step: fan-outs, the loop's claims, the hand-over, and claims riding with a batch of
 * successes; what the last of them found due.
 */
export class ClaimStep {
  readonly #d: ClaimStepDeps;
  /** When fan-outs run (beside the claims, or as the hand-over). */
  readonly fanOuts: FanOutRunner;
  /** How each fan-out runs; it learns the tenants a sharded database claims for. */
  readonly fanOutOptions: FanOutOptions;
  /** A claim is under way (the loop's or one riding with a batch of successes): one at a time. */
  #claiming = false;
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
  /** The claims of a dispatcher on a database sharded by tenant (`byTenant`), else undefined. */
  #tenantClaims: TenantClaims | undefined;
  /** Settles once the dispatcher knows whether the database shards by tenant. */
  #prepared: Promise<void> | undefined;

  constructor(deps: ClaimStepDeps) {
    this.#d = deps;
    this.fanOutOptions = { madeFor: (tenantIds) => this.#tenantClaims?.learn(tenantIds) };
    this.fanOuts = new FanOutRunner({
      ...deps.options,
      log: deps.log,
      pollMs: deps.pollMs,
      fanOut: this.fanOutOptions,
      onAttempts: () => this.#attemptsAdded(),
      running: deps.running,
    });
  }

  /** A claim is under way (the loop's, the hand-over or one riding with successes). */
  get claiming(): boolean {
    return this.#claiming;
  }

  /** Claims go tenant by tenant (a database sharded by tenant). */
  get byTenant(): boolean {
    return this.#tenantClaims !== undefined;
  }

  /** Finds out, once, whether the database shards by tenant (unless `byTenant` says). */
  prepare(): Promise<void> {
    const { options } = this.#d;
    this.#prepared ??= (async () => {
      const byTenant = options.byTenant ?? (await shardsByTenant(options.db));
      if (!byTenant) return;
      this.fanOutOptions.byTenant = true;
      this.#tenantClaims = new TenantClaims(options.db, {
        discoverMs: this.#d.pollMs,
        now: () => options.clock().getTime(),
      });
    })().catch((err: unknown) => {
      this.#prepared = undefined;
      throw err;
    });
    return this.#prepared;
  }

  /** Looks for the tenants with due attempts again at the next claim (runOnce). */
  rediscover(): void {
    this.#tenantClaims?.rediscover();
  }

  /** An event was committed: the next fan-out runs at once, and claims are worth making. */
  eventArrived(): void {
    this.fanOuts.notify();
    this.#exhausted = false;
  }

  /**
   * The loop may hand over: it holds nothing, its last claim found nothing due (no older attempt
   * waits), no claim or success batch is under way, and a fan-out is due.
   */
  canHandOver(): boolean {
    return (
      !this.#tenantClaims &&
      this.#nothingDue &&
      this.#d.queue.size === 0 &&
      !this.#claiming &&
      !this.#d.successesBusy() &&
      this.fanOuts.due
    );
  }

  /**
   * Fans out the oldest queued events and takes their attempts, leased, as its claim: sent at once
   * and written meanwhile (`sendFirstHandOver`, decision 0250), or, when the oldest event cannot be
   * sent before its attempts are written, written first (`handOver`).
   */
  async handOver(free: number): Promise<HandedOver | undefined> {
    const { options } = this.#d;
    this.#claiming = true;
    this.#awaitingFanOut = true;
    try {
      const now = options.clock();
      const request = {
        token: this.#d.token,
        leasedUntil: new Date(now.getTime() + this.#d.leaseMs),
        limit: free,
        tenantCap: 2 * this.#d.tenantCap,
      };
      // Sent first and written meanwhile, unless the oldest event cannot be (then written first).
      const handed = await this.fanOuts.runOwn(
        async () =>
          (await sendFirstHandOver(
            options.db,
            { ...options, log: this.#d.log, running: this.#d.running },
            request,
          )) ?? {
            ...(await handOver(options.db, options, request)),
            batch: HAND_OVER_BATCH,
          },
      );
      if (handed) {
        options.observer?.claimed(handed.claimed.length);
        // All taken: still nothing else due. Some left unleased: claims are worth making.
        this.found(handed.attempts === handed.claimed.length);
        if (!this.#d.closing()) this.#d.enqueue(handed.claimed);
        else await this.#d.release(handed.claimed);
      }
      return handed;
    } finally {
      this.#awaitingFanOut = false;
      this.#claiming = false;
    }
  }

  /** Waits for a fan-out the loop's next claim is for; the attempts it adds need no wake-up. */
  async fannedOut(fanning: Promise<void>): Promise<void> {
    this.#awaitingFanOut = true;
    try {
      await fanning;
    } finally {
      this.#awaitingFanOut = false;
    }
  }

  /** What a claim (or hand-over) found: whether nothing is left due ({@link #exhausted}, {@link #nothingDue}). */
  found(nothingDue: boolean): void {
    this.#exhausted = nothingDue;
    this.#nothingDue = nothingDue;
  }

  /** The loop's claim took `taken` attempts: nothing is left due if it took none (see {@link #tookNothing}). */
  took(taken: number): void {
    this.found(this.#tookNothing(taken));
  }

  /** A slot freed or an attempt settled: the loop claims again unless nothing else is due. */
  slotFreed(): void {
    if (!this.#exhausted && this.#d.queue.room() >= this.#d.refill) this.#d.wake();
  }

  /** Leases due attempts with what they are sent to and send (one round trip). */
  async claim(limit: number, dueBy?: Date): Promise<Claimed[]> {
    this.#claiming = true;
    try {
      const request = this.#leaseRequest(limit, dueBy);
      const rows = this.#tenantClaims
        ? await this.#tenantClaims.claim(request)
        : await leaseDueWithTargets(this.#d.options.db, request);
      this.#d.options.observer?.claimed(rows.length);
      return rows;
    } finally {
      this.#claiming = false;
    }
  }

  /**
   * The claim to make with a batch of successes: the room the batch leaves, when that is worth a
   * claim and no other claim is under way; none while stopping or in `runOnce`.
   */
  rideRequest(leaving: readonly Leaving[]): LeaseRequest | undefined {
    if (!this.#d.running() || this.#d.closing() || this.#claiming) return undefined;
    const free = this.#d.queue.room(leaving.length);
    if (free < this.#d.refill) return undefined;
    this.#claiming = true;
    return this.#leaseRequest(free);
  }

  /** A ride-along claim came back (undefined: its statement failed, nothing was leased). */
  rideDone(claimed: Claimed[] | undefined): void {
    this.#claiming = false;
    if (claimed) {
      this.took(claimed.length);
      this.#d.options.observer?.claimed(claimed.length);
      this.#d.enqueue(claimed);
    }
    // The loop left its own claim to this one; it looks again unless nothing was due.
    if (!this.#exhausted || !claimed) this.#d.wake();
  }

  /** A fan-out added attempts: claims are worth making again. */
  #attemptsAdded(): void {
    this.found(false);
    if (!this.#awaitingFanOut) this.#d.wake();
  }

  /** A claim took nothing, and not because a tenant holds as many unsent attempts as a claim lets it. */
  #tookNothing(taken: number): boolean {
    return taken === 0 && this.#d.queue.busiestTenant() < 2 * this.#d.tenantCap;
  }

  /** A claim of up to `limit` attempts, within the shares of what waits or is being sent. */
  #leaseRequest(limit: number, dueBy?: Date): LeaseRequest {
    const now = this.#d.options.clock();
    return {
      now: dueBy ?? now,
      leasedUntil: new Date(now.getTime() + this.#d.leaseMs),
      token: this.#d.token,
      limit,
      // Each tenant may hold as many attempts ahead as it may send at once.
      tenantCap: 2 * this.#d.tenantCap,
      inFlight: this.#d.queue.holdings(),
    };
  }
}
