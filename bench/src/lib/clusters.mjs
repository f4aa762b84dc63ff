// Throwaway PostgreSQL clusters of a scenario (a primary and a hot standby streaming from it, each
// in a temp directory on a free port, never the shared server on 5432), from the workspace's
// test-server package; this file adds the bench's part: the CPU every process of a cluster has
// used, and removal when a run is stopped early.
import { readdirSync, readFileSync } from 'node:fs';
import { createReplicatedClusters as create, pgBin, queryOnce } from '@customer-api/test-server';
import { atStop } from './proc.mjs';

/** One statement on a server, on a connection of its own. */
export const query = queryOnce;

/**
 * Creates and starts a primary and a standby cloned from it (binaries: `BENCH_PG_BIN`, else the
 * newest Debian install). Each has `cpuMicros()`; `destroy()` stops both and removes their files,
 * and a run stopped early (Ctrl+C, a failure) does the same through {@link atStop}.
 */
export async function createReplicatedClusters() {
  const clusters = await create({ bin: pgBin(process.env.BENCH_PG_BIN, 'BENCH_PG_BIN') });
  const forget = atStop(() => clusters.destroy());
  const withCpu = (cluster) => {
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
