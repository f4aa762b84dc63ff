// Starting the real server in tests and benchmarks: a free port, the built CLI as a child
// process, its keys, its readiness, and its stop.

export { CHROMIUM, CHROMIUM_FLAGS } from './chromium.js';
export {
  type Cluster,
  type ClusterOptions,
  clusterUnavailableReason,
  createCluster,
  createReplicatedClusters,
  pgBin,
  queryOnce,
  type ReplicatedClusters,
  type Standby,
} from './cluster.js';
export { migratedDataDir } from './data-dir.js';
export { freePort, tcpAnswers } from './port.js';
export {
  type ExitStatus,
  type ReadyOptions,
  type SpawnOptions,
  type StartOptions,
  spawnTracked,
  startProcess,
  stopProcess,
  type TrackedProcess,
  waitUntil,
  waitUntilReady,
} from './process.js';
export {
  type CliOptions,
  createKey,
  inheritedEnv,
  runCli,
  SERVER_CLI,
  type ServerProcess,
  type StartServerOptions,
  serverEnv,
  startServer,
  type TempDir,
  tempDir,
  uniqueTenant,
} from './server.js';
