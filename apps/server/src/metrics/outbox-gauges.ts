import { Gauge } from 'prom-client';
import type { Db } from '../db/port.js';
import { raw, rowOf, sql, statement } from '../db/sql.js';
import type { Metrics } from './registry.js';

/** A scrape never waits longer than this for the outbox query. */
const OUTBOX_QUERY_TIMEOUT_MS = 1000;

interface OutboxState {
  depth: number;
  oldestDueAgeS: number;
}

const limitTime = statement({
  name: 'outbox_gauges_statement_timeout',
  sql: () => sql`SET LOCAL statement_timeout = ${raw(String(OUTBOX_QUERY_TIMEOUT_MS))}`,
});

// float8 keeps the answers numbers.
const outboxState = statement({
  name: 'outbox_gauges_state',
  sql: () => sql`SELECT count(*)::float8 AS depth,
  coalesce(extract(epoch FROM now() - min(next_attempt_at) FILTER (WHERE next_attempt_at <= now())), 0)::float8 AS oldest
FROM webhook_delivery_queue`,
  row: rowOf<{ depth: number; oldest: number }>(),
});

/** Pending attempts, and how long the oldest due one has waited (0 when none is due). */
export async function readOutbox(db: Db): Promise<OutboxState> {
  return db.transaction(async (tx) => {
    await tx.run(limitTime, {});
    const row = await tx.first(outboxState, {});
    return { depth: Number(row?.depth ?? 0), oldestDueAgeS: Number(row?.oldest ?? 0) };
  });
}

/**
 * Webhook outbox gauges, read at scrape time with one query shared by both (the whole outbox:
 * every process reports the same value). A failed read reports NaN rather than failing the scrape.
 */
export function registerOutboxGauges(metrics: Metrics, db: Db): void {
  let reading: Promise<OutboxState | undefined> | undefined;
  const read = () => {
    reading ??= readOutbox(db)
      .catch(() => undefined)
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  const gauge = (name: string, help: string, pick: (state: OutboxState) => number) =>
    new Gauge({
      name,
      help,
      registers: [metrics.registry],
      async collect() {
        const state = await read();
        this.set(state ? pick(state) : Number.NaN);
      },
    });
  gauge('webhook_outbox_depth', 'Webhook delivery attempts pending (due or scheduled).', (s) => s.depth);
  gauge(
    'webhook_outbox_oldest_due_age_seconds',
    'How long the oldest due webhook delivery attempt has waited for a dispatcher.',
    (s) => s.oldestDueAgeS,
  );
}
