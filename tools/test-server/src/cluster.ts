import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './port.js';

const run = promisify(execFile);
const TOOLS = ['initdb', 'pg_ctl', 'pg_basebackup'] as const;
const DEBIAN_ROOT = '/usr/lib/postgresql';

/**
 * Where the PostgreSQL server binaries (`initdb`, `pg_ctl`, `pg_basebackup`) are: `override` when
 * given (each suite passes its own variable), else the newest Debian install under
 * `/usr/lib/postgresql`. Throws, naming what is missing, when there are none.
 */
export function pgBin(override?: string, variable = 'PG_BIN'): string {
  const has = (dir: string) => TOOLS.every((tool) => existsSync(join(dir, tool)));
  if (override) {
    if (has(override)) return override;
    throw new Error(`${variable}=${override} lacks one of ${TOOLS.join(', ')}`);
  }
  const versions = existsSync(DEBIAN_ROOT)
    ? readdirSync(DEBIAN_ROOT).sort((a, b) => Number(b) - Number(a))
    : [];
  for (const version of versions) {
    const dir = join(DEBIAN_ROOT, version, 'bin');
    if (has(dir)) return dir;
  }
  throw new Error(
    `No PostgreSQL server binaries (${TOOLS.join(', ')}) under ${DEBIAN_ROOT}: install Debian's postgresql or set ${variable}`,
  );
}

/** Why a throwaway cluster cannot be made here, or undefined when it can. */
export function clusterUnavailableReason(override?: string, variable = 'PG_BIN'): string | undefined {
  try {
    pgBin(override, variable);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** A PostgreSQL cluster of one test or benchmark alone: it may be stopped and started at will. */
export interface Cluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  readonly url: string;
  /** The postmaster's process id while the cluster runs. */
  postmasterPid(): number;
  start(): Promise<void>;
  /** Fast shutdown: open connections are terminated, as when the database host goes away. */
  stop(): Promise<void>;
  /** Stops the cluster at once and removes its files. */
  destroy(): Promise<void>;
}

/** Where a cluster's binaries come from and what it adds to PostgreSQL's defaults. */
export interface ClusterOptions {
  /** The binaries' directory (see {@link pgBin}). */
  bin?: string;
  /** Extra `-c name=value` settings. */
  settings?: readonly string[];
  /** The temp directory's name prefix. */
  prefix?: string;
}

/** initdb refuses to run as root: as root, a cluster belongs to the `postgres` user. */
async function asOwner(bin: string, args: readonly string[]): Promise<void> {
  if (userInfo().uid === 0) await run('runuser', ['-u', 'postgres', '--', bin, ...args]);
  else await run(bin, [...args]);
}

async function ownedTempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  if (userInfo().uid === 0) {
    const { stdout: uid } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(uid.trim()), Number(gid.trim()));
  }
  return dir;
}

/** A cluster whose data directory `data` (inside `dir`) already exists; not started. */
async function clusterAt(
  bin: string,
  dir: string,
  data: string,
  settings: readonly string[],
): Promise<Cluster> {
  const port = await freePort();
  const flags = ['listen_addresses=127.0.0.1', 'max_connections=200', ...settings].map((s) => `-c ${s}`);
  const options = `-p ${port} -k ${dir} ${flags.join(' ')}`;
  const pgCtl = (...args: string[]) => asOwner(join(bin, 'pg_ctl'), ['-D', data, ...args]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    postmasterPid: () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]),
    start: () => pgCtl('-w', '-t', '60', '-l', join(dir, 'log'), '-o', options, 'start'),
    stop: () => pgCtl('-w', '-t', '60', '-m', 'fast', 'stop'),
    destroy: async () => {
      await pgCtl('-w', '-m', 'immediate', 'stop').catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Creates and starts a throwaway cluster in a temp directory on a free port (never the shared
 * server on 5432, which other suites use).
 */
export async function createCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const bin = options.bin ?? pgBin();
  const dir = await ownedTempDir(options.prefix ?? 'customer-api-pg-');
  const data = join(dir, 'data');
  try {
    await asOwner(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    const cluster = await clusterAt(bin, dir, data, options.settings ?? []);
    await cluster.start();
    return cluster;
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** One statement on a server, on a connection of its own. */
export async function queryOnce<R extends Record<string, unknown>>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}

/** A hot standby streaming from a primary. */
export interface Standby extends Cluster {
  /** `pg_wal_replay_pause()` on the standby. */
  pauseReplay(): Promise<void>;
  /** `pg_wal_replay_resume()` on the standby. */
  resumeReplay(): Promise<void>;
  /** Resolves once the standby has replayed everything the primary wrote so far (30 s at most). */
  caughtUp(): Promise<void>;
}

/** A throwaway primary and a hot standby streaming from it, each on a free port. */
export interface ReplicatedClusters {
  readonly primary: Cluster;
  readonly standby: Standby;
  /** Stops both and removes their files. */
  destroy(): Promise<void>;
}

/**
 * Creates a primary ({@link createCluster}; PostgreSQL's defaults since 10 are `wal_level=replica`
 * and initdb's `trust` replication line for 127.0.0.1) and a standby cloned from it with
 * `pg_basebackup -R`, streaming as soon as it starts.
 */
export async function createReplicatedClusters(
  options: Omit<ClusterOptions, 'prefix'> = {},
): Promise<ReplicatedClusters> {
  const bin = options.bin ?? pgBin();
  const primary = await createCluster({ ...options, bin, prefix: 'customer-api-pg-primary-' });
  const dir = await ownedTempDir('customer-api-pg-standby-');
  const data = join(dir, 'data');
  let standby: Standby;
  try {
    const clone = ['-h', '127.0.0.1', '-p', new URL(primary.url).port, '-U', 'postgres', '-D', data];
    await asOwner(join(bin, 'pg_basebackup'), [...clone, '-R', '-X', 'stream', '--no-sync']);
    const cluster = await clusterAt(bin, dir, data, [...(options.settings ?? []), 'hot_standby=on']);
    standby = {
      ...cluster,
      pauseReplay: async () => void (await queryOnce(cluster.url, 'SELECT pg_wal_replay_pause()')),
      resumeReplay: async () => void (await queryOnce(cluster.url, 'SELECT pg_wal_replay_resume()')),
      caughtUp: () => caughtUp(primary.url, cluster.url),
    };
    await standby.start();
  } catch (error) {
    await primary.destroy();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    primary,
    standby,
    destroy: async () => {
      await standby.destroy();
      await primary.destroy();
    },
  };
}

async function caughtUp(primaryUrl: string, standbyUrl: string): Promise<void> {
  const [row] = await queryOnce<{ lsn: string }>(
    primaryUrl,
    'SELECT pg_current_wal_insert_lsn()::text AS lsn',
  );
  const lsn = row?.lsn ?? '';
  for (let i = 0; i < 300; i += 1) {
    const [replayed] = await queryOnce<{ done: boolean }>(
      standbyUrl,
      `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`,
    );
    if (replayed?.done) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the standby did not replay up to ${lsn} within 30 s`);
}
