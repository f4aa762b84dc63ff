import type { Tx } from '../db/port.js';
import { int, nullable, raw, rowOf, sql, statement, text, timestamptz } from '../db/sql.js';

/** A kept first response. */
export interface StoredResponse {
  fingerprint: string;
  statusCode: number;
  /** The text sent, with a signing secret sealed in place (`secrets/kept-responses.ts`). */
  body: string;
  /** The sealed secret standing in `body`; null when the response carries none. */
  sealedSecret: string | null;
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

const lockAndFindStatement = statement({
  name: 'idempotency_lock_and_find',
  params: { tenantId: text, key: text, now: timestamptz },
  sql: (
    p,
  ) => sql`SELECT pg_try_advisory_xact_lock(hashtextextended('idempotency:' || ${p.tenantId} || ':' || ${p.key}, 0)) AS locked,
       k.expires_at > ${p.now} AS live,
       k.fingerprint, k.status_code AS "statusCode", k.body, k.sealed_secret AS "sealedSecret"
     FROM (SELECT 1) AS one
     LEFT JOIN (SELECT * FROM idempotency_keys WHERE tenant_id = ${p.tenantId} AND key = ${p.key}) k ON true`,
  row: rowOf<{
    locked: boolean;
    live: boolean | null;
    fingerprint: string | null;
    statusCode: number | null;
    body: string | null;
    sealedSecret: string | null;
  }>(),
});

/**
 * In one round trip: takes the key's transaction-level advisory lock without waiting (false while
 * another transaction, in any process, holds it; released at commit or rollback, and when a
 * killed process's connection closes) and reads its live response. The read's snapshot may
 * predate the lock, so a response committed in between can be missed: {@link keep} then finds
 * the key taken, and the caller starts over.
 */
export async function lockAndFind(
  tx: Tx,
  tenantId: string,
  key: string,
  now: Date,
): Promise<{ locked: boolean; stored: StoredResponse | undefined }> {
  const row = await tx.first(lockAndFindStatement, { tenantId, key, now });
  const stored =
    row?.live === true && row.fingerprint != null && row.statusCode != null && row.body != null
      ? {
          fingerprint: row.fingerprint,
          statusCode: Number(row.statusCode),
          body: row.body,
          sealedSecret: row.sealedSecret,
        }
      : undefined;
  return { locked: row?.locked === true, stored };
}

const keepStatement = statement({
  name: 'idempotency_keep',
  params: {
    tenantId: text,
    key: text,
    fingerprint: text,
    statusCode: int,
    body: text,
    sealedSecret: nullable(text),
    createdAt: timestamptz,
    expiresAt: timestamptz,
  },
  sql: (p) => sql`WITH swept AS (
       DELETE FROM idempotency_keys
       WHERE tenant_id = ${p.tenantId} AND expires_at <= ${p.createdAt} AND key = ANY(ARRAY(
         SELECT key FROM idempotency_keys
         WHERE tenant_id = ${p.tenantId} AND expires_at <= ${p.createdAt} AND key <> ${p.key}
         ORDER BY expires_at LIMIT ${raw(String(SWEEP_BATCH))} FOR UPDATE SKIP LOCKED)))
     INSERT INTO idempotency_keys (tenant_id, key, fingerprint, status_code, body, sealed_secret, created_at, expires_at)
     VALUES (${p.tenantId}, ${p.key}, ${p.fingerprint}, ${p.statusCode}, ${p.body}, ${p.sealedSecret}, ${p.createdAt}, ${p.expiresAt})
     ON CONFLICT (tenant_id, key) DO UPDATE SET fingerprint = excluded.fingerprint,
       status_code = excluded.status_code, body = excluded.body, sealed_secret = excluded.sealed_secret,
       created_at = excluded.created_at, expires_at = excluded.expires_at
       WHERE idempotency_keys.expires_at <= ${p.createdAt}
     RETURNING 1 AS kept`,
});

/**
 * Keeps a first response unless the key already holds a live one (false then), replacing an
 * expired row of the key; in the same statement removes a few other expired rows of the same
 * tenant, oldest first: rows another write is removing are skipped, not waited for. Each write
 * removes more of its tenant's expired rows than it adds, so a tenant's rows stay at about one TTL
 * of its keyed writes, and the statement touches one tenant only (one shard when sharded by
 * tenant).
 */
export async function keep(tx: Tx, row: KeptResponse): Promise<boolean> {
  return (await tx.run(keepStatement, row)) === 1;
}
