import { randomBytes } from 'node:crypto';
import {
  type Cluster,
  createCluster as createTestServerCluster,
  createReplicatedClusters as createTestServerReplicatedClusters,
  pgBin,
  type ReplicatedClusters,
  clusterUnavailableReason as testServerClusterUnavailableReason,
} from '@customer-api/test-server';
import pg from 'pg';

export { type Cluster, queryOnce as query, type ReplicatedClusters } from '@customer-api/test-server';

/** This suite's PostgreSQL binaries: `RELIABILITY_PG_BIN`, else the newest Debian install. */
const bin = () => pgBin(process.env.RELIABILITY_PG_BIN, 'RELIABILITY_PG_BIN');

/** Why a throwaway cluster cannot be made here, or undefined when it can. */
export function clusterUnavailableReason(): string | undefined {
  return testServerClusterUnavailableReason(process.env.RELIABILITY_PG_BIN, 'RELIABILITY_PG_BIN');
}

/**
 * Creates and starts a throwaway cluster in a temp directory on a free port (never the shared
 * server on 5432, which other test suites use).
 */
export function createCluster(): Promise<Cluster> {
  return createTestServerCluster({ bin: bin(), prefix: 'reliability-pg-' });
}

/** A throwaway primary and a hot standby streaming from it, on this suite's binaries. */
export function createReplicatedClusters(): Promise<ReplicatedClusters> {
  return createTestServerReplicatedClusters({ bin: bin() });
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
