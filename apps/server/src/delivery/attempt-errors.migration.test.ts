import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from '../db/migrate.js';
import { newId } from '../lib/ids.js';
import { query } from '../test/sql.js';
import { useTestApp } from '../test/test-app.js';
import { ATTEMPT_ERRORS } from './attempt-errors.js';

const t = useTestApp();
const SCRUB = join(MIGRATIONS_FOLDER, '0007_scrub_webhook_attempt_errors.sql');

/** Texts the old sender stored (`${code} ${message}${cause}`), and what the migration makes of them. */
const LEGACY: Array<[string, string]> = [
  ['ERR_WEBHOOK_SSRF vm resolves to 127.0.0.1 (loopback): refused', ATTEMPT_ERRORS.addressRefused],
  ['ERR_WEBHOOK_SSRF hooks.example has no address', ATTEMPT_ERRORS.dnsFailed],
  ['ENOTFOUND getaddrinfo ENOTFOUND localhost.', ATTEMPT_ERRORS.dnsFailed],
  ['EAI_AGAIN getaddrinfo EAI_AGAIN hooks.internal', ATTEMPT_ERRORS.dnsFailed],
  ['ECONNREFUSED connect ECONNREFUSED 10.0.0.7:443', ATTEMPT_ERRORS.connectionRefused],
  [
    'UND_ERR_CONNECT_TIMEOUT Connect Timeout Error (attempted address: 10.0.0.7:443)',
    ATTEMPT_ERRORS.connectTimeout,
  ],
  ['UND_ERR_SOCKET other side closed', ATTEMPT_ERRORS.closed],
  [
    "ERR_TLS_CERT_ALTNAME_INVALID Hostname/IP does not match certificate's altnames: IP: 10.0.0.5",
    ATTEMPT_ERRORS.tlsCertificate,
  ],
  ['ERR_SSL_WRONG_VERSION_NUMBER 803C2B0F:error:0A00010B:SSL routines', ATTEMPT_ERRORS.tlsHandshake],
  ['HPE_INVALID_CONSTANT Expected HTTP/', ATTEMPT_ERRORS.badResponse],
  ['TypeError Invalid URL', ATTEMPT_ERRORS.failed],
  // Already fine: kept as they are.
  ['Receiver answered HTTP 500', 'Receiver answered HTTP 500'],
  ['Timed out after 10000 ms', 'Timed out after 10000 ms'],
  [
    'Not sent: the subscription is disabled or deleted.',
    'Not sent: the subscription is disabled or deleted.',
  ],
  ...Object.values(ATTEMPT_ERRORS).map((text): [string, string] => [text, text]),
];

describe('the migration scrubbing stored attempt errors', () => {
  it('maps every legacy text to its category and keeps the fixed ones', async () => {
    const tenantId = newId('tenant');
    const rows = LEGACY.map(([error]) => ({ id: newId('whdel'), error }));
    await query(
      t.database.db,
      `INSERT INTO webhook_deliveries
         (id, tenant_id, subscription_id, event_id, event_type, attempt, retry_step, status, error, created_at)
       SELECT a.id, $1::text, 'whsub_legacy', 'evt_' || a.id, 'page.version.created', 1, 0, 'failed', a.error, now()
       FROM unnest($2::text[], $3::text[]) AS a(id, error)`,
      [tenantId, rows.map((r) => r.id), rows.map((r) => r.error)],
    );
    await query(t.database.db, await readFile(SCRUB, 'utf8'));
    const after = await query<{ id: string; error: string }>(
      t.database.db,
      'SELECT id, error FROM webhook_deliveries WHERE id = ANY ($1::text[])',
      [rows.map((r) => r.id)],
    );
    const byId = new Map(after.map((r) => [r.id, r.error]));
    expect(rows.map((r) => byId.get(r.id))).toEqual(LEGACY.map(([, expected]) => expected));
  });
});
