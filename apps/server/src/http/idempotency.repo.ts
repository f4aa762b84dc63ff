import { and, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { idempotencyKeys } from '../db/schema/index.js';

/** A kept first response. */
export type StoredResponse = Pick<typeof idempotencyKeys.$inferSelect, 'fingerprint' | 'statusCode' | 'body'>;

/** Expired rows one write removes (more than one per write, so the sweep keeps up with inserts). */
const SWEEP_BATCH = 16;

/**
 * Takes the key's transaction-level advisory lock without waiting; false while another
 * transaction (in any process) holds it. Released at commit or rollback, also when the holding
 * process dies and PostgreSQL closes its connection.
 */
export async function tryLockKey(tx: Db, tenantId: string, key: string): Promise<boolean> {
  const res = (await tx.execute(
    sql`SELECT pg_try_advisory_xact_lock(hashtextextended(${`idempotency:${tenantId}:${key}`}, 0)) AS locked`,
  )) as unknown as { rows: Array<{ locked: boolean }> };
  return res.rows[0]?.locked === true;
}

/** The key's response, unless it expired (an expired row is as good as absent). */
export async function findLive(
  tx: Db,
  tenantId: string,
  key: string,
  now: Date,
): Promise<StoredResponse | undefined> {
  const rows = await tx
    .select({
      fingerprint: idempotencyKeys.fingerprint,
      statusCode: idempotencyKeys.statusCode,
      body: idempotencyKeys.body,
    })
    .from(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.tenantId, tenantId),
        eq(idempotencyKeys.key, key),
        gt(idempotencyKeys.expiresAt, now),
      ),
    );
  return rows[0];
}

/**
 * Keeps a first response (replacing an expired row of the same key), then removes a few expired
 * rows of any tenant through the expiry index: no scan, and rows another write is removing are
 * skipped rather than waited for.
 */
export async function keep(
  tx: Db,
  row: typeof idempotencyKeys.$inferInsert & { expiresAt: Date; createdAt: Date },
): Promise<void> {
  const { fingerprint, statusCode, body, createdAt, expiresAt } = row;
  await tx
    .insert(idempotencyKeys)
    .values(row)
    .onConflictDoUpdate({
      target: [idempotencyKeys.tenantId, idempotencyKeys.key],
      set: { fingerprint, statusCode, body, createdAt, expiresAt },
    });
  await tx.execute(sql`
    DELETE FROM idempotency_keys WHERE (tenant_id, key) IN (
      SELECT tenant_id, key FROM idempotency_keys WHERE expires_at <= ${createdAt.toISOString()}::timestamptz
      ORDER BY expires_at LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)`);
}
