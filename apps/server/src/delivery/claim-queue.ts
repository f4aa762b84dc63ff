import type { DeliveryRow } from './attempts.repo.js';
import type { Claimed, InFlight } from './lease.repo.js';

/** The most attempts a {@link ClaimQueue} holds. */
export interface QueueLimits {
  /** Waiting for a slot or being sent. */
  unsent: number;
  /** All held, those sent and being recorded included. */
  held: number;
}

interface Share extends InFlight {
  /** Of `count` (leased and held here), how many are being sent. */
  sending: number;
  /** Of `count`, how many were sent and wait for their outcome to be recorded. */
  recording: number;
}

/**
 * The attempts one dispatcher holds a lease on: claimed ahead and waiting for a slot, being sent,
 * or sent and being recorded. Claims count the attempts not yet sent or being sent against their
 * subscription's and tenant's share (one being recorded keeps its lease, so no claim takes it
 * again, but no longer uses a share); sends take waiting attempts round robin (the tenant, then
 * the subscription, with the fewest being sent; then the oldest), never more than `tenantCap` of
 * one tenant at once.
 */
export class ClaimQueue {
  readonly #tenantCap: number;
  readonly #limits: QueueLimits;
  readonly #waiting: Claimed[] = [];
  readonly #shares = new Map<string, Share>();
  readonly #tenantSending = new Map<string, number>();
  #held = 0;
  #recording = 0;

  constructor(
    tenantCap: number,
    limits: QueueLimits = { unsent: Number.POSITIVE_INFINITY, held: Number.POSITIVE_INFINITY },
  ) {
    this.#tenantCap = tenantCap;
    this.#limits = limits;
  }

  /**
   * How many attempts a claim may add: room under the limit of attempts waiting or being sent, and
   * under that of all held, `recorded` of them counted out (a batch the claim's own statement
   * records).
   */
  room(recorded = 0): number {
    return Math.min(this.#limits.unsent - this.unsent, this.#limits.held - this.#held + recorded);
  }

  /** Attempts held: waiting, being sent and being recorded. */
  get size(): number {
    return this.#held;
  }

  /** Attempts held that are waiting for a slot or being sent (not yet being recorded). */
  get unsent(): number {
    return this.#held - this.#recording;
  }

  /** Attempts waiting for a slot. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** The most attempts one tenant has waiting or being sent. */
  busiestTenant(): number {
    const perTenant = new Map<string, number>();
    let most = 0;
    for (const { tenantId, count, recording } of this.#shares.values()) {
      const held = (perTenant.get(tenantId) ?? 0) + count - recording;
      perTenant.set(tenantId, held);
      most = Math.max(most, held);
    }
    return most;
  }

  /** Attempts waiting or being sent, per subscription: what a claim counts against the shares. */
  holdings(): InFlight[] {
    const held: InFlight[] = [];
    for (const { tenantId, subscriptionId, count, recording } of this.#shares.values()) {
      if (count > recording) held.push({ tenantId, subscriptionId, count: count - recording });
    }
    return held;
  }

  /** Holds newly claimed attempts until {@link next} takes them. */
  add(claimed: readonly Claimed[]): void {
    for (const c of claimed) {
      const share = this.#shares.get(c.row.subscriptionId) ?? {
        tenantId: c.row.tenantId,
        subscriptionId: c.row.subscriptionId,
        count: 0,
        sending: 0,
        recording: 0,
      };
      share.count += 1;
      this.#shares.set(c.row.subscriptionId, share);
      this.#waiting.push(c);
      this.#held += 1;
    }
  }

  /**
   * Takes the waiting attempt to send next and counts it as being sent; undefined when none waits
   * or every waiting attempt's tenant already sends its full share.
   */
  next(): Claimed | undefined {
    // The least (tenant sending, subscription sending, due time), compared field by field: this
    // runs at every send, so it allocates nothing per waiting attempt.
    let best = -1;
    let bestTenant = 0;
    let bestSub = 0;
    let bestDue = 0;
    for (let i = 0; i < this.#waiting.length; i += 1) {
      const { row } = this.#waiting[i] as Claimed;
      const tenantSending = this.#tenantSending.get(row.tenantId) ?? 0;
      if (tenantSending >= this.#tenantCap) continue;
      const subSending = this.#shares.get(row.subscriptionId)?.sending ?? 0;
      const due = row.nextAttemptAt?.getTime() ?? 0;
      const better =
        best < 0 ||
        tenantSending < bestTenant ||
        (tenantSending === bestTenant && (subSending < bestSub || (subSending === bestSub && due < bestDue)));
      if (better) {
        best = i;
        bestTenant = tenantSending;
        bestSub = subSending;
        bestDue = due;
      }
    }
    if (best < 0) return undefined;
    const [taken] = this.#waiting.splice(best, 1) as [Claimed];
    const share = this.#shares.get(taken.row.subscriptionId);
    if (share) share.sending += 1;
    this.#tenantSending.set(taken.row.tenantId, (this.#tenantSending.get(taken.row.tenantId) ?? 0) + 1);
    return taken;
  }

  /**
   * An attempt {@link next} took is no longer being sent (its exchange is over): still held until
   * settled, but out of the shares. Called once per attempt, before {@link settled}.
   */
  sent(row: DeliveryRow): void {
    const left = (this.#tenantSending.get(row.tenantId) ?? 1) - 1;
    if (left > 0) this.#tenantSending.set(row.tenantId, left);
    else this.#tenantSending.delete(row.tenantId);
    const share = this.#shares.get(row.subscriptionId);
    if (share) {
      share.sending -= 1;
      share.recording += 1;
    }
    this.#recording += 1;
  }

  /** An attempt {@link sent} is settled (recorded, or given up by a killed dispatcher). */
  settled(row: DeliveryRow): void {
    const share = this.#shares.get(row.subscriptionId);
    if (share) share.recording -= 1;
    this.#recording -= 1;
    this.#release(row);
  }

  /**
   * Removes and returns the waiting attempts whose lease ends before `sendBy` (a send started later
   * might outlast it), or every waiting attempt when `sendBy` is omitted.
   */
  dropWaiting(sendBy?: number): Claimed[] {
    const dropped: Claimed[] = [];
    for (let i = this.#waiting.length - 1; i >= 0; i -= 1) {
      const c = this.#waiting[i] as Claimed;
      if (sendBy !== undefined && (c.row.leasedUntil?.getTime() ?? 0) >= sendBy) continue;
      this.#waiting.splice(i, 1);
      this.#release(c.row);
      dropped.push(c);
    }
    return dropped;
  }

  #release(row: DeliveryRow): void {
    this.#held -= 1;
    const share = this.#shares.get(row.subscriptionId);
    if (!share) return;
    share.count -= 1;
    if (share.count === 0) this.#shares.delete(row.subscriptionId);
  }
}
