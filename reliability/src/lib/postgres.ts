import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './server-process.js';

const run = promisify(execFile);

/** Debian's PostgreSQL 15 binaries, used for throwaway clusters. */
export const PG_BIN = process.env.RELIABILITY_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** Why a throwaway cluster cannot be made here, or undefined when it can. */
export function clusterUnavailableReason(): string | undefined {
  if (!existsSync(join(PG_BIN, 'initdb')) || !existsSync(join(PG_BIN, 'pg_ctl'))) {
    return `PostgreSQL binaries not found in ${PG_BIN} (set RELIABILITY_PG_BIN)`;
  }
  return undefined;
}

/** A PostgreSQL cluster of this suite alone: it may be stopped and started at will. */
export interface Cluster {
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  destroy(): Promise<void>;
}

/** initdb refuses to run as root; as root the cluster belongs to the `postgres` user. */
export async function asOwner(args: string[]): Promise<void> {
  const [bin, ...rest] = args as [string, ...string[]];
  if (userInfo().uid === 0) await run('runuser', ['-u', 'postgres', '--', bin, ...rest]);
  else await run(bin, rest);
}

/**
 * Creates and starts a throwaway cluster in a temp directory on a free port (never the shared
 * server on 5432, which other test suites use).
 */
export async function createCluster(): Promise<Cluster> {
  const dir = await mkdtemp(join(tmpdir(), 'reliability-pg-'));
  if (userInfo().uid === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const data = join(dir, 'data');
  const port = await freePort();
  await asOwner([join(PG_BIN, 'initdb'), '-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`;
  const pgCtl = (...args: string[]) => asOwner([join(PG_BIN, 'pg_ctl'), '-D', data, ...args]);
  const cluster: Cluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => pgCtl('-w', '-t', '60', '-l', join(dir, 'log'), '-o', options, 'start'),
    // Fast shutdown: open connections are terminated, as when the database host goes away.
    stop: () => pgCtl('-w', '-t', '60', '-m', 'fast', 'stop'),
    destroy: async () => {
      await pgCtl('-w', '-m', 'immediate', 'stop').catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}

/** Creates a uniquely named database on a server; returns its URL and how to drop it. */
export async function createDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `reliability_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/**
 * A PostgreSQL database for a test: on `TEST_DATABASE_URL`'s server when set, else on a throwaway
 * cluster; undefined (with the reason) when neither is possible, so the test is skipped visibly.
 */
export async function postgresDatabase(): Promise<
  { url: string; dispose(): Promise<void> } | { skip: string }
> {
  const shared = process.env.TEST_DATABASE_URL;
  if (shared) {
    const db = await createDatabase(shared);
    return { url: db.url, dispose: db.drop };
  }
  const reason = clusterUnavailableReason();
  if (reason) return { skip: reason };
  const cluster = await createCluster();
  return { url: cluster.url, dispose: cluster.destroy };
}
