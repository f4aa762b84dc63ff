// Throwaway PostgreSQL clusters of a scenario: a primary and a hot standby streaming from it
// (`pg_basebackup -R`), each in a temp directory on a free port, never the shared server on 5432.
// The same approach as reliability/src/lib/replica.ts, kept here so that the bench does not
// depend on the reliability package. Also reads the CPU every process of a cluster has used.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { atStop, freePort } from './proc.mjs';

const run = promisify(execFile);
const TOOLS = ['initdb', 'pg_ctl', 'pg_basebackup'];

/**
 * The PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup): BENCH_PG_BIN when set, else the
 * newest Debian install under /usr/lib/postgresql. Throws, naming what is missing, when none is.
 */
export function pgBin() {
  const has = (dir) => TOOLS.every((tool) => existsSync(join(dir, tool)));
  if (process.env.BENCH_PG_BIN) {
    if (has(process.env.BENCH_PG_BIN)) return process.env.BENCH_PG_BIN;
    throw new Error(`BENCH_PG_BIN=${process.env.BENCH_PG_BIN} lacks one of ${TOOLS.join(', ')}`);
  }
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) if (has(join(root, version, 'bin'))) return join(root, version, 'bin');
  throw new Error(
    `No PostgreSQL server binaries (${TOOLS.join(', ')}) under ${root}: install Debian's postgresql or set BENCH_PG_BIN`,
  );
}

/** initdb refuses to run as root: as root, a cluster belongs to the `postgres` user. */
async function asOwner(bin, args) {
  if (userInfo().uid === 0) await run('runuser', ['-u', 'postgres', '--', bin, ...args]);
  else await run(bin, args);
}

async function ownedTempDir(prefix) {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  if (userInfo().uid === 0) {
    const { stdout: uid } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(uid.trim()), Number(gid.trim()));
  }
  return dir;
}

/** One statement on a server, on a connection of its own. */
export async function query(url, text) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

/** A started cluster in `dir`: its URL, its postmaster's CPU, and how to remove it. */
async function startCluster(bin, dir, data, port, settings) {
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200 ${settings}`;
  const pgCtl = (...args) => asOwner(join(bin, 'pg_ctl'), ['-D', data, ...args]);
  await pgCtl('-w', '-t', '60', '-l', join(dir, 'log'), '-o', options, 'start');
  const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    cpuMicros: () => clusterCpuMicros(postmaster),
    destroy: async () => {
      await pgCtl('-w', '-m', 'immediate', 'stop').catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Creates and starts a primary and a standby cloned from it with `pg_basebackup -R` (PostgreSQL's
 * defaults since 10: `wal_level=replica`, and initdb's `trust` replication line for 127.0.0.1), the
 * standby streaming as soon as it starts. `destroy()` stops both and removes their files; a run
 * stopped early (Ctrl+C, a failure) does the same through {@link atStop}.
 */
export async function createReplicatedClusters() {
  const bin = pgBin();
  const dirs = [];
  const started = [];
  const destroy = async () => {
    for (const cluster of started.reverse()) await cluster.destroy();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  };
  const forget = atStop(destroy);
  try {
    const primaryDir = await ownedTempDir('bench-pg-primary-');
    dirs.push(primaryDir);
    const primaryData = join(primaryDir, 'data');
    await asOwner(join(bin, 'initdb'), ['-D', primaryData, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    const primaryPort = await freePort();
    const primary = await startCluster(bin, primaryDir, primaryData, primaryPort, '');
    started.push(primary);
    const standbyDir = await ownedTempDir('bench-pg-standby-');
    dirs.push(standbyDir);
    const standbyData = join(standbyDir, 'data');
    const clone = ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', standbyData];
    await asOwner(join(bin, 'pg_basebackup'), [...clone, '-R', '-X', 'stream', '--no-sync']);
    const standby = await startCluster(bin, standbyDir, standbyData, await freePort(), '-c hot_standby=on');
    started.push(standby);
    standby.caughtUp = () => caughtUp(primary.url, standby.url);
    return {
      primary,
      standby,
      destroy: async () => {
        forget();
        await destroy();
      },
    };
  } catch (error) {
    forget();
    await destroy();
    throw error;
  }
}

/** Resolves once the standby at `standbyUrl` has replayed all the primary wrote so far (30 s at most). */
async function caughtUp(primaryUrl, standbyUrl) {
  const [{ lsn }] = await query(primaryUrl, 'SELECT pg_current_wal_insert_lsn()::text AS lsn');
  for (let i = 0; i < 300; i += 1) {
    const [row] = await query(standbyUrl, `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`);
    if (row?.done) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the standby did not replay up to ${lsn} within 30 s`);
}

/** `/proc/<pid>/stat` fields after the command name. */
function statFields(pid) {
  return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
}

/**
 * CPU time (user + system, µs, 10 ms ticks) used so far by every process of the cluster whose
 * postmaster is `postmaster`: its own, its children's that exited (reaped into its cutime and
 * cstime, so a backend of a closed connection still counts), and its live children's.
 */
function clusterCpuMicros(postmaster) {
  const own = statFields(postmaster);
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = statFields(entry);
      if (Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process exited while the list was read: its time is in the postmaster's cutime now.
    }
  }
  return ticks * 10_000;
}
