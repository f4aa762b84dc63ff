import type { Clock } from '../lib/clock.js';
import type { ClaimQueue } from './claim-queue.js';
import { type DeliverDeps, deliverOne } from './deliver.js';
import type { Claimed } from './lease.repo.js';
import type { DispatcherLog } from './types.js';

/** What {@link SendSlots} works with. */
export interface SendSlotsDeps {
  /** Requests open at once: the slots. */
  concurrency: number;
  /** Least lease left for a waiting attempt to be sent. */
  minLeaseLeftMs: number;
  clock: Clock;
  /** Identifies this dispatcher's leases. */
  token: string;
  queue: ClaimQueue;
  /** How one attempt is sent and its outcome recorded. */
  deliver: DeliverDeps;
  log: DispatcherLog;
  /** Splits claimed attempts: those sent now, and the turns of throttled ones (`ThrottleGate.pass`). */
  pass: (claimed: Claimed[]) => { now: Claimed[]; turns: Promise<void> | undefined };
  /** The dispatcher is stopping or killed: nothing new starts. */
  closing: () => boolean;
  /** The dispatcher was killed: leases are left to run out, failed records go unlogged. */
  killed: () => boolean;
  /** Gives back the leases of attempts left unsent (`LeaseReturns.release`). */
  release: (claimed: Claimed[]) => Promise<void>;
  /** Gives back leases that a stop waits for (`LeaseReturns.releaseLater`). */
  releaseLater: (claimed: Claimed[]) => void;
  /** A slot freed or an attempt settled. */
  freed: () => void;
}

/** The sending slots: starts claimed attempts while slots are free and follows them until recorded. */
export class SendSlots {
  readonly #d: SendSlotsDeps;
  /** Attempts under way, each until its outcome is recorded. */
  readonly #inFlight = new Set<Promise<void>>();
  /** HTTP exchanges open: the slots in use. */
  #sending = 0;
  /** Sends started, ever (runOnce's answer). */
  #launched = 0;

  constructor(deps: SendSlotsDeps) {
    this.#d = deps;
  }

  /** Sends started, ever. */
  get launched(): number {
    return this.#launched;
  }

  /** No attempt is under way (every outcome recorded, no throttle turn pending). */
  get idle(): boolean {
    return this.#inFlight.size === 0;
  }

  /** Resolves when the first of the attempts under way is done. */
  oneSettled(): Promise<void> {
    return Promise.race(this.#inFlight);
  }

  /** Resolves when every attempt under way is done. */
  settled(): Promise<unknown> {
    return Promise.allSettled([...this.#inFlight]);
  }

  /**
   * Holds claimed attempts and starts the sends there are slots for; returns how many it took.
   * Attempts of throttled subscriptions wait for their turn first (counted in flight meanwhile).
   */
  enqueue(claimed: Claimed[]): number {
    const { now, turns } = this.#d.pass(claimed);
    this.admit(now);
    if (turns) {
      this.#inFlight.add(turns);
      void turns.finally(() => this.#inFlight.delete(turns));
    }
    return claimed.length;
  }

  /** Queues attempts to send and starts what there are slots for; gives them back while stopping. */
  admit(claimed: Claimed[]): void {
    if (claimed.length === 0) return;
    if (this.#d.closing()) {
      // A stop gives the leases back (and waits for it); a kill leaves them to run out.
      if (!this.#d.killed()) this.#d.releaseLater(claimed);
      return;
    }
    this.#d.queue.add(claimed);
    this.#pump();
  }

  /**
   * Starts waiting attempts while slots are free, within the tenants' shares. Nothing new starts
   * once the dispatcher is stopping. An attempt that waited so long that its lease could run out
   * during the send is given back unsent (another claim takes it again).
   */
  #pump(): void {
    if (this.#d.closing()) return;
    const stale = this.#d.queue.dropWaiting(this.#d.clock().getTime() + this.#d.minLeaseLeftMs);
    if (stale.length > 0) void this.#d.release(stale);
    while (this.#sending < this.#d.concurrency) {
      const next = this.#d.queue.next();
      if (!next) break;
      this.#launch(next);
    }
  }

  /**
   * Sends one attempt. It holds its slot while the request is open and its lease (and its place in
   * the queue's capacity) until its outcome is recorded: recording overlaps the next sends, and
   * still, an attempt counts only once recorded.
   */
  #launch({ row, target, written }: Claimed): void {
    const { queue, freed } = this.#d;
    this.#launched += 1;
    this.#sending += 1;
    let open = true;
    const sent = () => {
      if (!open) return;
      open = false;
      this.#sending -= 1;
      queue.sent(row);
      this.#pump();
      freed();
    };
    const task = deliverOne(this.#d.deliver, row, this.#d.token, target, sent, written).catch(
      (err: unknown) => {
        if (!this.#d.killed()) {
          this.#d.log.error({ err, deliveryId: row.id }, 'webhook delivery failed to record');
        }
      },
    );
    this.#inFlight.add(task);
    void task.finally(() => {
      this.#inFlight.delete(task);
      sent();
      queue.settled(row);
      freed();
    });
  }
}
