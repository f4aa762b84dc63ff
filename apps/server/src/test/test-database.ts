import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { inject } from 'vitest';
import { type Database, openDatabase } from '../db/database.js';
import { runMigrations } from '../db/migrate.js';

/** A migrated database for one test file, and how to throw it away. */
export interface TestDatabase {
  database: Database;
  /** The URL of the per-file PostgreSQL database (undefined on PGlite). */
  url: string | undefined;
  dispose(): Promise<void>;
}

/**
 * In-memory PGlite by default. With a PostgreSQL server URL, a fresh uniquely named database is
 * created for the file and dropped at the end, so parallel files and runs never collide.
 */
export async function createTestDatabase(serverUrl: string | undefined): Promise<TestDatabase> {
  if (!serverUrl) {
    // A cold PGlite costs ~2 s of initdb; the global setup's migrated dump loads in a fraction.
    const snapshot = inject('pgliteSnapshot');
    const loadDataDir = snapshot ? new Blob([await readFile(snapshot)]) : undefined;
    const database = await openDatabase({ dataDir: 'memory://', loadDataDir });
    await runMigrations(database);
    return { database, url: undefined, dispose: () => database.close() };
  }
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const nodes = await createOnEveryNode(serverUrl, name);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString() });
  await runMigrations(database);
  return {
    database,
    url: url.toString(),
    dispose: async () => {
      await database.close();
      for (const node of nodes) await onNode(node, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

/** A node of the server: the URL of its maintenance database. */
type NodeUrl = string;

async function onNode(nodeUrl: NodeUrl, ...texts: string[]): Promise<pg.QueryResult[]> {
  const client = new pg.Client({ connectionString: nodeUrl });
  await client.connect();
  try {
    const results: pg.QueryResult[] = [];
    for (const text of texts) results.push(await client.query(text));
    return results;
  } finally {
    await client.end();
  }
}

/**
 * Creates the database `name` on the server. When the server is a Citus coordinator with workers
 * (its maintenance database has the extension and knows them), the database is a cluster of its
 * own: created on every node with the extension, the coordinator knowing the same workers, so
 * `runMigrations` distributes its tables. Returns every node the database was created on.
 */
async function createOnEveryNode(serverUrl: string, name: string): Promise<NodeUrl[]> {
  const [, catalog] = await onNode(
    serverUrl,
    `CREATE DATABASE "${name}"`,
    `SELECT to_regclass('pg_catalog.pg_dist_node') IS NOT NULL AS citus`,
  );
  const placed = catalog?.rows[0]?.citus
    ? (
        await onNode(
          serverUrl,
          `SELECT nodename AS host, nodeport AS port, groupid = 0 AS coordinator FROM pg_dist_node
             WHERE noderole = 'primary' ORDER BY groupid`,
        )
      )[0]
    : undefined;
  const citusNodes = (placed?.rows ?? []) as { host: string; port: number; coordinator: boolean }[];
  if (!citusNodes.some((n) => !n.coordinator)) return [serverUrl];
  const nodeUrl = (host: string, port: number, database: string) => {
    const url = new URL(serverUrl);
    url.hostname = host;
    url.port = String(port);
    url.pathname = `/${database}`;
    return url.toString();
  };
  const workers = citusNodes.filter((n) => !n.coordinator);
  const coordinator = citusNodes.find((n) => n.coordinator);
  for (const worker of workers) {
    await onNode(nodeUrl(worker.host, worker.port, 'postgres'), `CREATE DATABASE "${name}"`);
    await onNode(nodeUrl(worker.host, worker.port, name), 'CREATE EXTENSION citus');
  }
  const own = new URL(serverUrl);
  own.pathname = `/${name}`;
  await onNode(
    own.toString(),
    'CREATE EXTENSION citus',
    ...(coordinator ? [`SELECT citus_set_coordinator_host('${coordinator.host}', ${coordinator.port})`] : []),
    ...workers.map((w) => `SELECT citus_add_node('${w.host}', ${w.port})`),
  );
  return [serverUrl, ...workers.map((w) => nodeUrl(w.host, w.port, 'postgres'))];
}
