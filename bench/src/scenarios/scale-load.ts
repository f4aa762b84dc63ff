// Loads the scale tenants: N accounts each, with multi-row INSERT … SELECT FROM generate_series
// in batches (a progress bar per tenant), then sets the tenant counters the server maintains
// (`accounts`, and `accounts:empty` since no account has persons) to the exact row count.
import cliProgress from 'cli-progress';
import type pg from 'pg';
import { pool, type TenantKey, tenantKey } from '../lib/db.js';

const BATCH = 20_000;

/** Tenant name of a scale size. */
export const scaleTenant = (size: number): string => `bench-accounts-${size}`;

/**
 * The canonical domain of account `i`; ids are `account_0` + 25 hex digits of md5 (a valid
 * TypeID-shaped id), creation times one second apart so that keyset order is total.
 */
const INSERT = `
  INSERT INTO accounts (id, tenant_id, domain, name, created_at, updated_at)
  SELECT 'account_0' || substr(md5($1 || ':' || i), 1, 25), $1, 'a' || i || '.scale.example',
         'Account ' || i, ts, ts
  FROM generate_series($2::int, $3::int) AS i,
       LATERAL (SELECT timestamptz '2024-01-01' + i * interval '1 second' AS ts) t
  ON CONFLICT DO NOTHING`;

const SET_COUNTERS = `
  INSERT INTO tenant_counters (tenant_id, scope, count)
  SELECT $1, scope, (SELECT count(*) FROM accounts WHERE tenant_id = $1)
  FROM unnest(ARRAY['accounts', 'accounts:empty']) AS scope
  ON CONFLICT (tenant_id, scope) DO UPDATE SET count = EXCLUDED.count`;

/** Ensures each size's tenant holds exactly `size` accounts; returns `{ size: { tenantId, apiKey } }`. */
export async function loadScaleTenants(
  databaseUrl: string,
  sizes: readonly number[],
  progress: (line: string) => void,
): Promise<{ tenants: Record<number, TenantKey>; loadSeconds: Record<number, number> }> {
  const db = pool(databaseUrl, 2);
  const tenants: Record<number, TenantKey> = {};
  const timings: Record<number, number> = {};
  try {
    for (const size of sizes) {
      const key = tenantKey(databaseUrl, scaleTenant(size));
      tenants[size] = key;
      const { rows } = await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM accounts WHERE tenant_id = $1',
        [key.tenantId],
      );
      const have = rows[0]?.n ?? 0;
      if (have === size) {
        await db.query(SET_COUNTERS, [key.tenantId]);
        continue;
      }
      if (have > size) throw new Error(`${scaleTenant(size)} holds ${have} accounts, more than ${size}`);
      progress(`loading ${size.toLocaleString('en')} accounts into ${scaleTenant(size)}`);
      timings[size] = await loadTenant(db, key.tenantId, have, size);
    }
    await db.query('ANALYZE accounts');
  } finally {
    await db.end();
  }
  return { tenants, loadSeconds: timings };
}

async function loadTenant(db: pg.Pool, tenantId: string, have: number, size: number): Promise<number> {
  const bar = new cliProgress.SingleBar(
    { format: '  accounts |{bar}| {percentage}% {value}/{total} rows, {eta_formatted} left', etaBuffer: 20 },
    cliProgress.Presets.shades_classic,
  );
  const t0 = Date.now();
  bar.start(size, have);
  for (let from = have + 1; from <= size; from += BATCH) {
    const to = Math.min(size, from + BATCH - 1);
    await db.query(INSERT, [tenantId, from, to]);
    bar.update(to);
  }
  bar.stop();
  await db.query(SET_COUNTERS, [tenantId]);
  return (Date.now() - t0) / 1000;
}
