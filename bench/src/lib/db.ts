// The benchmark databases on the local PostgreSQL server (never the `test` database).
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { SERVER_MAIN } from './proc.js';

/** PostgreSQL server of the run (BENCH_PG_URL, default the local server). */
export const PG_SERVER = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';

/** URL of one benchmark database. */
export const dbUrl = (name: string): string => `${PG_SERVER}/${name}`;

/** Creates the database when missing (`fresh` drops it first) and applies the server's migrations. */
export async function ensureDatabase(name: string, { fresh = false } = {}): Promise<string> {
  const admin = new pg.Client({ connectionString: dbUrl('postgres') });
  await admin.connect();
  try {
    if (fresh) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  cli(['migrate'], { DATABASE_URL: dbUrl(name) });
  return dbUrl(name);
}

/** Runs the server CLI (`customer-api …`) and returns its stdout. */
export function cli(args: string[], env: NodeJS.ProcessEnv): string {
  return execFileSync(process.execPath, [SERVER_MAIN, ...args], {
    env: { ...process.env, LOG_LEVEL: 'error', ...env },
  }).toString();
}

/** A tenant and an API key of it. */
export interface TenantKey {
  tenantId: string;
  apiKey: string;
}

/** Creates (or reuses by name) a tenant and a new read/write key for it: `{ tenantId, apiKey }`. */
export function tenantKey(
  databaseUrl: string | undefined,
  tenant: string,
  env: NodeJS.ProcessEnv = { DATABASE_URL: databaseUrl },
): TenantKey {
  const out = cli(['keys', 'create', '--tenant', tenant, '--scopes', 'read,write'], env);
  return JSON.parse(out.trim().split('\n').pop() ?? '') as TenantKey;
}

/** A node-postgres pool on a benchmark database. */
export const pool = (url: string, max = 10): pg.Pool => new pg.Pool({ connectionString: url, max });
