import type { Db } from '../db/client.js';
import { rowQuery } from '../db/fast.js';

/** A kept first response. */
export interface StoredResponse {
  fingerprint: string;
  statusCode: number;
  body: string;
}

/** A response to keep. */
export interface KeptResponse extends StoredResponse {
  tenantId: string;
  key: string;
  createdAt: Date;
  expiresAt: Date;
}

/** Expired rows one write removes (more than one per write, so the sweep keeps up with inserts). */
const SWEEP_BATCH = 16;

/**
 * In one round trip: takes the key's transaction-level advisory lock without waiting (false while
 * another transaction, in any process, holds it; released at commit or rollback, and when a
 * killed process's connection closes) and reads its live response. The read's snapshot may
 * predate the lock, so a response committed in between can be missed: {@link keep} then finds
 * the key taken, and the caller starts over.
 */
export async function lockAndFind(
  tx: Db,
  tenantId: string,
  key: string,
  now: Date,
): Promise<{ locked: boolean; stored: StoredResponse | undefined }> {
  const rows = await rowQuery(tx)<{
    locked: boolean;
    fingerprint: string | null;
    statusCode: number | null;
    body: string | null;
  }>(
    'idempotency_lock_and_find',
    `SELECT pg_try_advisory_xact_lock(hashtextextended('idempotency:' || $1 || ':' || $2, 0)) AS locked,
       k.fingerprint, k.status_code AS "statusCode", k.body
     FROM (SELECT 1) AS one
     LEFT JOIN idempotency_keys k ON k.tenant_id = $1 AND k.key = $2 AND k.expires_at > $3`,
    [tenantId, key, now],
  );
  const row = rows[0];
  const stored =
    row?.fingerprint != null && row.statusCode != null && row.body != null
      ? { fingerprint: row.fingerprint, statusCode: Number(row.statusCode), body: row.body }
      : undefined;
  return { locked: row?.locked === true, stored };
}

/**
 * Keeps a first response unless the key already holds a live one (false then), replacing an
 * expired row of the key; in the same statement removes a few expired rows of any tenant through
 * the expiry index: no scan, and rows another write is removing are skipped, not waited for.
 */
export async function keep(tx: Db, row: KeptResponse): Promise<boolean> {
  const rows = await rowQuery(tx)(
    'idempotency_keep',
    `WITH swept AS (
       DELETE FROM idempotency_keys WHERE (tenant_id, key) IN (
         SELECT tenant_id, key FROM idempotency_keys
         WHERE expires_at <= $6 AND NOT (tenant_id = $1 AND key = $2)
         ORDER BY expires_at LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED))
     INSERT INTO idempotency_keys (tenant_id, key, fingerprint, status_code, body, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (tenant_id, key) DO UPDATE SET fingerprint = excluded.fingerprint,
       status_code = excluded.status_code, body = excluded.body,
       created_at = excluded.created_at, expires_at = excluded.expires_at
       WHERE idempotency_keys.expires_at <= $6
     RETURNING 1 AS kept`,
    [row.tenantId, row.key, row.fingerprint, row.statusCode, row.body, row.createdAt, row.expiresAt],
  );
  return rows.length === 1;
}
