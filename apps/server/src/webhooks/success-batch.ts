import type { Db } from '../db/client.js';
import { rowQuery } from '../db/fast.js';
import { completeSuccess, type DeliveryRow } from './deliveries.repo.js';

/** What a successful attempt writes onto its row. */
export type SuccessResult = Pick<
  DeliveryRow,
  'responseStatus' | 'responseBody' | 'durationMs' | 'attemptedAt'
>;

/** Most successes recorded by one statement. */
const MAX_BATCH = 256;

/*
 * The batch form of `completeSuccess`: every attempt still leased to its token becomes succeeded,
 * and the failure runs of their subscriptions end; returns the ids recorded (an id missing from the
 * answer lost its lease). One statement, so one round trip and one commit for the whole batch.
 */
const COMPLETE_SUCCESSES = `WITH input AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::int[], $6::timestamptz[])
    AS i(id, token, response_status, response_body, duration_ms, attempted_at)
), done AS (
  UPDATE webhook_deliveries d
  SET status = 'succeeded', response_status = i.response_status, response_body = i.response_body,
    duration_ms = i.duration_ms, error = NULL, attempted_at = i.attempted_at,
    next_attempt_at = NULL, lease_token = NULL, leased_until = NULL
  FROM input i
  WHERE d.id = i.id AND d.lease_token = i.token AND d.status = 'pending'
  RETURNING d.id, d.subscription_id, i.attempted_at
), cleared AS (
  UPDATE webhook_subscriptions s SET failing_since = NULL, updated_at = c.at
  FROM (SELECT subscription_id, max(attempted_at) AS at FROM done GROUP BY subscription_id) c
  WHERE s.id = c.subscription_id AND s.failing_since IS NOT NULL
)
SELECT id FROM done`;

interface Pending {
  id: string;
  token: string;
  result: SuccessResult;
  resolve: (recorded: boolean) => void;
  reject: (err: unknown) => void;
}

/**
 * Records successful attempts in batches (group commit): the first success starts a statement at
 * once, and the successes that arrive while it runs go together in the next. Each caller's promise
 * settles only once its own row is written, so an attempt still counts only when recorded. When a
 * batch fails as a whole (a deadlock with a concurrent failure record, a dropped connection), its
 * attempts are recorded one by one, so one bad row cannot fail the others.
 */
export class SuccessRecorder {
  readonly #db: Db;
  #queue: Pending[] = [];
  #flushing = false;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Records one success; false when the lease was lost (nothing written). */
  record(id: string, token: string, result: SuccessResult): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.#queue.push({ id, token, result, resolve, reject });
      if (!this.#flushing) {
        this.#flushing = true;
        // Successes settled in the same turn of the event loop join the first batch.
        setImmediate(() => void this.#drain());
      }
    });
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, MAX_BATCH);
      try {
        const rows = await rowQuery(this.#db)<{ id: string }>(
          'webhook_complete_successes',
          COMPLETE_SUCCESSES,
          [
            batch.map((p) => p.id),
            batch.map((p) => p.token),
            batch.map((p) => p.result.responseStatus),
            batch.map((p) => p.result.responseBody),
            batch.map((p) => p.result.durationMs),
            batch.map((p) => p.result.attemptedAt?.toISOString() ?? null),
          ],
        );
        const recorded = new Set(rows.map((r) => r.id));
        for (const p of batch) p.resolve(recorded.has(p.id));
      } catch {
        await Promise.all(
          batch.map((p) => completeSuccess(this.#db, p.id, p.token, p.result).then(p.resolve, p.reject)),
        );
      }
    }
    this.#flushing = false;
  }
}
