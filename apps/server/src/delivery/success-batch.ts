import type { Db } from '../db/port.js';
import { rowOf, sql, statement, text } from '../db/sql.js';
import { completeSuccess } from './attempts.repo.js';
import {
  completeSuccessesCtes,
  RELAXED_COMMIT,
  SUCCESS_PARAMS,
  type SuccessColumns,
} from './deliveries.sql.js';
import { type Claimed, completeAndLease, type LeaseRequest } from './lease.repo.js';
import { groupBy } from './tenant-scope.js';
import type { AttemptKey, Leaving, SuccessRecording, SuccessResult } from './types.js';

export type { Leaving, SuccessResult } from './types.js';

/** Most successes recorded by one statement. */
const MAX_BATCH = 256;

/*
 * Every attempt still leased to its token becomes succeeded; answers the ids recorded (an id missing
 * from the answer lost its lease). One statement, so one round trip and one commit for the batch,
 * relaxed (`RELAXED_COMMIT`): lost in a crash, the attempts are sent again once their leases end.
 */
const completeSuccesses = statement({
  name: 'webhook_complete_successes',
  params: SUCCESS_PARAMS,
  sql: (p) => sql`WITH ${RELAXED_COMMIT}, ${completeSuccessesCtes(p)}
SELECT id FROM done CROSS JOIN relaxed`,
  row: rowOf<{ id: string }>(),
});

/** {@link completeSuccesses} for a batch of one tenant's attempts: a router query on Citus. */
const completeTenantSuccesses = statement({
  name: 'webhook_complete_tenant_successes',
  params: { ...SUCCESS_PARAMS, tenantId: text },
  sql: (p) => sql`WITH ${RELAXED_COMMIT}, ${completeSuccessesCtes(p, p.tenantId)}
SELECT id FROM done CROSS JOIN relaxed`,
  row: rowOf<{ id: string }>(),
});

/**
 * A claim made in the statement that records a batch of successes (the dispatcher's): one round
 * trip and one commit for both.
 */
export interface RideAlongClaim {
  /**
   * The claim to make with a batch whose attempts are `leaving`, or undefined for none (then the
   * batch is recorded alone). Called once per batch, just before its statement starts.
   */
  request(leaving: readonly Leaving[]): LeaseRequest | undefined;
  /**
   * The attempts the requested claim leased, or undefined when its statement failed (nothing was
   * leased). Called before any caller of the batch hears that its success was recorded.
   */
  done(claimed: Claimed[] | undefined): void;
}

interface Pending {
  attempt: AttemptKey;
  token: string;
  result: SuccessResult;
  leaving: Leaving | undefined;
  resolve: (recorded: boolean) => void;
  reject: (err: unknown) => void;
}

/**
 * Records successful attempts in batches (group commit): the first success starts a statement at
 * once, and the successes that arrive while it runs go together in the next. Each caller's promise
 * settles only once its own row is written, so an attempt still counts only when recorded. When a
 * batch fails as a whole (a deadlock with a concurrent failure record, a dropped connection), its
 * attempts are recorded one by one, so one bad row cannot fail the others. With a
 * {@link RideAlongClaim}, a batch's statement also makes the claim it asks for.
 */
export class SuccessRecorder implements SuccessRecording {
  readonly #db: Db;
  readonly #ride: RideAlongClaim | undefined;
  readonly #byTenant: () => boolean;
  #queue: Pending[] = [];
  /** A statement is under way: one at a time; what arrives meanwhile goes in the next. */
  #writing = false;
  #scheduled = false;

  /**
   * `byTenant` (asked at each batch): one statement per tenant of the batch, all at once (a
   * dispatcher on a Citus cluster, where a statement runs on one tenant's shard); no claim rides
   * with them then.
   */
  constructor(db: Db, ride?: RideAlongClaim, { byTenant = () => false }: { byTenant?: () => boolean } = {}) {
    this.#db = db;
    this.#ride = ride;
    this.#byTenant = byTenant;
  }

  /**
   * Successes wait for a statement: the next one will ask for a claim to ride with it. (One under
   * way already asked: its claim, if any, is under way too.)
   */
  get busy(): boolean {
    return this.#scheduled || this.#queue.length > 0;
  }

  /**
   * Records one success; false when the lease was lost (nothing written). `leaving` is the attempt
   * as a ride-along claim counts it (without it, the claim counts it as still held).
   */
  record(attempt: AttemptKey, token: string, result: SuccessResult, leaving?: Leaving): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.#queue.push({ attempt, token, result, leaving, resolve, reject });
      if (!this.#scheduled && !this.#writing) {
        this.#scheduled = true;
        // Successes settled in the same turn of the event loop join the first batch.
        setImmediate(() => {
          this.#scheduled = false;
          this.#start();
        });
      }
    });
  }

  /** Starts a batch of what waits, unless one is under way (its end starts the next). */
  #start(): void {
    if (this.#queue.length > 0 && !this.#writing) {
      const batch = this.#queue.splice(0, MAX_BATCH);
      this.#writing = true;
      void this.#flush(batch).finally(() => {
        this.#writing = false;
        this.#start();
      });
    }
  }

  async #flush(batch: readonly Pending[]): Promise<void> {
    try {
      const recorded = await this.#write(batch);
      for (const p of batch) p.resolve(recorded.has(p.attempt.id));
    } catch {
      await Promise.all(
        batch.map((p) => completeSuccess(this.#db, p.attempt, p.token, p.result).then(p.resolve, p.reject)),
      );
    }
  }

  /** One statement for the batch (and the claim riding with it, if any); the ids recorded. */
  async #write(batch: readonly Pending[]): Promise<Set<string>> {
    if (this.#byTenant()) return this.#writeByTenant(batch);
    const columns = successColumns(batch);
    const claim = this.#ride?.request(batch.flatMap((p) => (p.leaving ? [p.leaving] : [])));
    if (!claim) {
      const rows = await this.#db.all(completeSuccesses, columns);
      return new Set(rows.map((r) => r.id));
    }
    let answer: Awaited<ReturnType<typeof completeAndLease>>;
    try {
      answer = await completeAndLease(this.#db, columns, claim);
    } catch (err) {
      this.#ride?.done(undefined);
      throw err;
    }
    this.#ride?.done(answer.claimed);
    return answer.recorded;
  }

  /** One statement per tenant of the batch, concurrently; the ids recorded. */
  async #writeByTenant(batch: readonly Pending[]): Promise<Set<string>> {
    const tenants = groupBy(batch, (p) => p.attempt.tenantId);
    const answers = await Promise.all(
      [...tenants].map(([tenantId, pending]) =>
        this.#db.all(completeTenantSuccesses, { ...successColumns(pending), tenantId }),
      ),
    );
    return new Set(answers.flatMap((rows) => rows.map((r) => r.id)));
  }
}

function successColumns(batch: readonly Pending[]): SuccessColumns {
  return {
    tenantIds: batch.map((p) => p.attempt.tenantId),
    ids: batch.map((p) => p.attempt.id),
    tokens: batch.map((p) => p.token),
    queueAts: batch.map((p) => p.attempt.queueAt ?? null),
    responseStatuses: batch.map((p) => p.result.responseStatus),
    responseBodies: batch.map((p) => p.result.responseBody),
    durationsMs: batch.map((p) => p.result.durationMs),
    attemptedAt: batch.map((p) => p.result.attemptedAt),
  };
}
