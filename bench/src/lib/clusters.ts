// Throwaway PostgreSQL clusters of a scenario (a primary and a hot standby streaming from it, each
// in a temp directory on a free port, never the shared server on 5432), from the workspace's
// test-server package; this file adds the bench's part: the CPU every process of a cluster has
// used, and removal when a run is stopped early. Also a Citus cluster (a coordinator and workers,
// deploy/citus/cluster.sh) and one plain PostgreSQL instance configured as its nodes are.
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { promisify } from 'node:util';
import {
  type Cluster,
  createReplicatedClusters as create,
  createCluster,
  pgBin,
  queryOnce,
} from '@customer-api/test-server';
import { atStop, messageOf, ROOT } from './proc.js';

const run = promisify(execFile);

/** One statement on a server, on a connection of its own. */
export const query = queryOnce;

/** A throwaway cluster with the CPU time all its processes have used so far (µs). */
export type MeasuredCluster<C extends Cluster = Cluster> = C & { cpuMicros: () => number };

/** A PostgreSQL instance of a scenario: its URL, name and CPU time so far (every process, µs). */
export interface Instance {
  name: string;
  url: string;
  postmaster: number;
  cpuMicros: () => number;
}

/**
 * Creates and starts a primary and a standby cloned from it (binaries: `BENCH_PG_BIN`, else the
 * newest Debian install). Each has `cpuMicros()`; `destroy()` stops both and removes their files,
 * and a run stopped early (Ctrl+C, a failure) does the same through {@link atStop}.
 */
export async function createReplicatedClusters() {
  const clusters = await create({ bin: pgBin(process.env.BENCH_PG_BIN, 'BENCH_PG_BIN') });
  const forget = atStop(() => clusters.destroy());
  const withCpu = <C extends Cluster>(cluster: C): MeasuredCluster<C> => {
    const postmaster = cluster.postmasterPid();
    return Object.assign(cluster, { cpuMicros: () => clusterCpuMicros(postmaster) });
  };
  return {
    primary: withCpu(clusters.primary),
    standby: withCpu(clusters.standby),
    destroy: async () => {
      forget();
      await clusters.destroy();
    },
  };
}

/** `/proc/<pid>/stat` fields after the command name. */
function statFields(pid: number | string): string[] {
  return (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
}

/**
 * CPU time (user + system, µs, 10 ms ticks) used so far by every process of the cluster whose
 * postmaster is `postmaster`: its own, its children's that exited (reaped into its cutime and
 * cstime, so a backend of a closed connection still counts), and its live children's.
 */
export function clusterCpuMicros(postmaster: number): number {
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

/** The Citus cluster script, its PostgreSQL 15 binaries, and the database it creates on every node. */
const CLUSTER_SH = `${ROOT}deploy/citus/cluster.sh`;
const CITUS_PG_BIN = '/usr/lib/postgresql/15/bin';
const CITUS_PG_LIB = '/usr/lib/postgresql/15/lib';
/** The database cluster.sh creates on every node. */
export const CITUS_DATABASE = 'customer_api';
/**
 * The bench's own cluster (BENCH_CITUS_DIR, BENCH_CITUS_PORT: worker n on the port + n), apart
 * from cluster.sh's defaults and `pnpm test:citus`'s (5480, 5580), since `up` first removes
 * whatever its directory holds.
 */
const CITUS_DIR = process.env.BENCH_CITUS_DIR ?? '/tmp/customer-api-citus-bench';
const CITUS_PORT = Number(process.env.BENCH_CITUS_PORT ?? 5680);

/** What cluster.sh runs when Citus is missing (the same places it looks in). */
const buildScripts = (): string[] =>
  [process.env.CITUS_BUILD_SCRIPT, `${ROOT}../shared/citus/build.sh`, '/work/shared/citus/build.sh'].filter(
    (path): path is string => Boolean(path),
  );

const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * Why cluster.sh cannot start a Citus cluster here (not root; Citus neither installed into
 * PostgreSQL 15 nor buildable), or undefined when it can (building Citus first when missing).
 */
export function citusUnavailableReason(): string | undefined {
  if (userInfo().uid !== 0) return 'not root: deploy/citus/cluster.sh runs PostgreSQL as postgres';
  if (existsSync(`${CITUS_PG_LIB}/citus.so`)) return undefined;
  if (buildScripts().some(executable)) return undefined;
  return `Citus is not installed into ${CITUS_PG_LIB} and no build script was found (CITUS_BUILD_SCRIPT, ../shared/citus/build.sh)`;
}

/** An {@link Instance}. */
const instance = (name: string, url: string, postmaster: number): Instance => ({
  name,
  url,
  postmaster,
  cpuMicros: () => clusterCpuMicros(postmaster),
});

/** A Citus cluster of the bench's own. */
export interface CitusCluster {
  url: string;
  nodes: Instance[];
  log: string;
  destroy: () => Promise<void>;
}

/**
 * {@link startCitusCluster}'s failure text: what the script wrote on stderr, else the error's message.
 */
const failureText = (error: unknown): string => {
  const stderr = error && typeof error === 'object' && 'stderr' in error ? String(error.stderr) : '';
  return (stderr || messageOf(error)).trim();
};

/**
 * Starts a Citus coordinator and `workers` workers with deploy/citus/cluster.sh (which builds
 * Citus first when it is missing: minutes) in the bench's own directory and ports. Answers the
 * coordinator's URL (database {@link CITUS_DATABASE}, distributed by `migrate`), every node as
 * {@link instance}, the coordinator's log file, and `destroy()` (`cluster.sh down`, also run when
 * the run stops early).
 */
export async function startCitusCluster(workers = 2): Promise<CitusCluster> {
  if (
    ['/tmp/customer-api-citus', '/tmp/customer-api-citus-test'].includes(CITUS_DIR) ||
    [5480, 5580].includes(CITUS_PORT)
  )
    throw new Error("BENCH_CITUS_DIR and BENCH_CITUS_PORT must differ from cluster.sh's and test:citus's");
  const env = { ...process.env, CITUS_DIR, CITUS_PORT: String(CITUS_PORT) };
  const down = () => run('bash', [CLUSTER_SH, 'down'], { env });
  const forget = atStop(down);
  try {
    await run('bash', [CLUSTER_SH, 'up', String(workers)], { env, maxBuffer: 16 << 20 });
  } catch (error) {
    forget();
    await down().catch(() => {});
    throw new Error(`deploy/citus/cluster.sh up ${workers} failed: ${failureText(error)}`);
  }
  const nodes = Array.from({ length: workers + 1 }, (_, n) => {
    const pid = Number(readFileSync(`${CITUS_DIR}/node${n}/postmaster.pid`, 'utf8').split('\n')[0]);
    const url = `postgres://postgres@127.0.0.1:${CITUS_PORT + n}/${CITUS_DATABASE}`;
    return instance(n === 0 ? 'coordinator' : `worker ${n}`, url, pid);
  });
  const [coordinator] = nodes;
  if (!coordinator) throw new Error('the Citus cluster has no coordinator');
  return {
    url: coordinator.url,
    nodes,
    log: `${CITUS_DIR}/node0.log`,
    destroy: async () => {
      forget();
      await down();
    },
  };
}

/** Settings cluster.sh gives every node that are not Citus' own or the node's address and logging. */
const NODE_ONLY =
  /^(citus\.|shared_preload_libraries|output_plugin_libraries|listen_addresses|port|unix_socket_directories|log_)/;

/** The `name = value` settings cluster.sh appends to each node's postgresql.conf, but {@link NODE_ONLY}'s. */
export function citusNodeSettings(): string[] {
  const script = readFileSync(CLUSTER_SH, 'utf8');
  const conf = /cat >>"\$data\/postgresql\.conf" <<EOF\n([\s\S]*?)\nEOF/.exec(script)?.[1];
  const settings = (conf ?? '')
    .split('\n')
    .map((line) => /^([a-z_.]+)\s*=\s*'?([^'#]*?)'?\s*$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && !NODE_ONLY.test(m[1] ?? ''))
    .map((m) => `${m[1]}=${m[2]}`);
  if (settings.length < 3) throw new Error(`could not read the nodes' settings from ${CLUSTER_SH}`);
  return settings;
}

/**
 * One plain PostgreSQL 15 instance (the cluster's binaries, without Citus) with the settings of
 * the cluster's nodes and their locale (C.UTF-8), in a temp directory on a free port, with the
 * database {@link CITUS_DATABASE}: the single server the cluster is compared with.
 */
export async function createSinglePostgres(): Promise<
  Instance & { settings: string[]; destroy: () => Promise<void> }
> {
  const settings = citusNodeSettings();
  const locale = process.env.LC_ALL;
  process.env.LC_ALL = 'C.UTF-8';
  let cluster: Cluster;
  try {
    cluster = await createCluster({ bin: CITUS_PG_BIN, settings, prefix: 'customer-api-bench-single-' });
  } finally {
    if (locale === undefined) delete process.env.LC_ALL;
    else process.env.LC_ALL = locale;
  }
  const forget = atStop(() => cluster.destroy());
  await queryOnce(cluster.url, `CREATE DATABASE ${CITUS_DATABASE}`);
  const url = cluster.url.replace(/\/postgres$/, `/${CITUS_DATABASE}`);
  return {
    ...instance('single', url, cluster.postmasterPid()),
    settings,
    destroy: async () => {
      forget();
      await cluster.destroy();
    },
  };
}
