// The expired pile of the `ours-purging` system: finished attempts and their events, created 40 days
// ago (past the default 30-day retention), that its dispatcher purges while it drains the backlog
// (`WEBHOOKS_PURGE_INTERVAL_S=1`: a pass every second, 500 rows a statement).
import type pg from 'pg';

const AGE = "now() - interval '40 days'";

/**
 * Writes `count` expired attempts, each with its own event, spread over every subscription of the
 * round's database; resolves to how many rows it wrote (attempts plus events).
 */
export async function insertExpired(pool: pg.Pool, count: number): Promise<number> {
  const { rows } = await pool.query<{ id: string; tenant_id: string }>(
    'SELECT id, tenant_id FROM webhook_subscriptions ORDER BY id',
  );
  if (rows.length === 0) throw new Error('no subscription to write expired attempts for');
  const each = Math.ceil(count / rows.length);
  for (const sub of rows) {
    await pool.query(
      `WITH ev AS (
         INSERT INTO webhook_events (id, tenant_id, type, payload, created_at)
         SELECT 'evt_expired_' || $2 || '_' || g, $1, 'page.version.created', '{"expired":true}'::jsonb, ${AGE}
         FROM generate_series(1, $3::int) g)
       INSERT INTO webhook_deliveries (id, tenant_id, subscription_id, event_id, event_type, attempt,
         retry_step, status, response_status, response_body, duration_ms, created_at, attempted_at)
       SELECT 'whdel_expired_' || $2 || '_' || g, $1, $2, 'evt_expired_' || $2 || '_' || g,
         'page.version.created', 1, 0, 'succeeded', 200, 'ok', 3, ${AGE}, ${AGE}
       FROM generate_series(1, $3::int) g`,
      [sub.tenant_id, sub.id, each],
    );
  }
  await pool.query('ANALYZE webhook_deliveries; ANALYZE webhook_events');
  return 2 * each * rows.length;
}

/** The expired rows left (attempts plus events). */
export async function expiredLeft(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT (SELECT count(*) FROM webhook_deliveries WHERE id LIKE 'whdel_expired_%')::int
       + (SELECT count(*) FROM webhook_events WHERE id LIKE 'evt_expired_%')::int AS n`,
  );
  return rows[0]?.n ?? 0;
}

/**
 * Waits until the dispatcher's purge has started on the pile of `written` rows (its passes are a
 * second apart), so that it runs beside the drain from its first event; resolves to the rows left.
 */
export async function purgeUnderWay(pool: pg.Pool, written: number, timeoutMs = 30_000): Promise<number> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const left = await expiredLeft(pool);
    if (left < written) return left;
    if (Date.now() > until) throw new Error(`the purge did not start within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Deletes what the purge left of the pile, so that the systems after it drain the tables it found. */
export async function dropExpired(pool: pg.Pool): Promise<void> {
  await pool.query("DELETE FROM webhook_deliveries WHERE id LIKE 'whdel_expired_%'");
  await pool.query("DELETE FROM webhook_events WHERE id LIKE 'evt_expired_%'");
}
