// The benchmark databases on the local PostgreSQL server (never the `test` database).
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { SERVER_MAIN } from './proc.mjs';

/** PostgreSQL server of the run (BENCH_PG_URL, default the local server). */
export const PG_SERVER = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';

/** URL of one benchmark database. */
export const dbUrl = (name) => `${PG_SERVER}/${name}`;

/** Creates the database when missing (`fresh` drops it first) and applies the server's migrations. */
export async function ensureDatabase(name, { fresh = false } = {}) {
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
export function cli(args, env) {
  return execFileSync(process.execPath, [SERVER_MAIN, ...args], {
    env: { ...process.env, LOG_LEVEL: 'error', ...env },
  }).toString();
}

/** Creates (or reuses by name) a tenant and a new read/write key for it: `{ tenantId, apiKey }`. */
export function tenantKey(databaseUrl, tenant, env = { DATABASE_URL: databaseUrl }) {
  const out = cli(['keys', 'create', '--tenant', tenant, '--scopes', 'read,write'], env);
  return JSON.parse(out.trim().split('\n').pop());
}

/** A node-postgres pool on a benchmark database. */
export const pool = (url, max = 10) => new pg.Pool({ connectionString: url, max });
