import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTestSettings } from '../config.js';
import { newId } from '../lib/ids.js';
import { CHUNK_BYTES, PostgresStore } from '../modules/assets/content/postgres-store.js';
import { readSchema } from '../test/catalog.js';
import { query } from '../test/sql.js';
import { type Database, openDatabase } from './database.js';
import { MIGRATIONS_FOLDER, runMigrations } from './migrate.js';

// The migrations keying every tenant table by tenant_id first, run on a database that already
// holds rows: from the last migration before them to the last one.

const FIRST = '0018_asset_chunks_tenant';
const { databaseUrl } = loadTestSettings();

/** Tables whose key was `(id)` and becomes `(tenant_id, id)`. */
const BY_ID = [
  'account_activity',
  'accounts',
  'assets',
  'audience_sessions',
  'audience_versions',
  'audiences',
  'conversations',
  'message_changes',
  'messages',
  'pages',
  'persons',
  'session_interactions',
  'topic_entries',
  'topics',
  'webhook_deliveries',
  'webhook_events',
  'webhook_subscriptions',
];

const PRIMARY_KEYS: Record<string, string[]> = {
  ...Object.fromEntries(BY_ID.map((table) => [table, ['tenant_id', 'id']])),
  webhook_event_queue: ['tenant_id', 'event_id'],
  asset_files: ['tenant_id', 'asset_id', 'kind'],
  asset_chunks: ['tenant_id', 'blob_id', 'seq'],
};

const UNIQUE_KEYS: Record<string, [string, string[]]> = {
  account_activity: ['account_activity_log_id_key', ['tenant_id', 'log_id']],
  audience_versions: ['audience_versions_number_key', ['tenant_id', 'audience_id', 'version_number']],
  conversations: ['conversations_audience_key', ['tenant_id', 'audience_id']],
  messages: ['messages_conversation_seq_idx', ['tenant_id', 'conversation_id', 'seq']],
};

/** Tables seeded with generic rows (the asset content tables get rows of their own). */
const SEEDED = [...BY_ID, 'webhook_event_queue'];

/** The committed migrations before `tag`, in a folder of their own (drizzle reads the journal). */
async function migrationsBefore(tag: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'customer-api-migrations-'));
  await cp(MIGRATIONS_FOLDER, dir, { recursive: true });
  const path = join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(await readFile(path, 'utf8')) as { entries: Array<{ tag: string }> };
  const index = journal.entries.findIndex((entry) => entry.tag === tag);
  if (index < 0) throw new Error(`no migration ${tag}`);
  journal.entries = journal.entries.slice(0, index);
  await writeFile(path, JSON.stringify(journal));
  return dir;
}

/** An empty database of its own: in-memory PGlite, or a new database on the test server. */
async function emptyDatabase(): Promise<{ database: Database; dispose(): Promise<void> }> {
  if (!databaseUrl) {
    const database = await openDatabase({ dataDir: 'memory://' });
    return { database, dispose: () => database.close() };
  }
  const name = `test_keys_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString() });
  return {
    database,
    dispose: async () => {
      await database.close();
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    },
  };
}

async function migrateWith(database: Database, migrationsFolder: string): Promise<void> {
  if (database.kind === 'pglite')
    await migratePglite(drizzlePglite({ client: database.pglite }), { migrationsFolder });
  else await migratePg(drizzlePg({ client: database.pool }), { migrationsFolder });
}

/**
 * Inserts three rows into `table`, two of tenant `a` and one of `b`: a value for every NOT NULL
 * column without a default, distinct per row so that no unique key collides.
 */
async function seedRows(database: Database, table: string, a: string, b: string): Promise<void> {
  const columns = await query<{ name: string; type: string }>(
    database.db,
    `SELECT column_name AS name, data_type AS type FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = $1 AND is_nullable = 'NO' AND column_default IS NULL
      ORDER BY ordinal_position`,
    [table],
  );
  const value = ({ name, type }: { name: string; type: string }): string => {
    if (name === 'tenant_id') return 'CASE WHEN n < 3 THEN $1 ELSE $2 END';
    if (type === 'text') return `'${name}_' || n || '_' || $3`;
    if (type === 'integer' || type === 'bigint') return 'n';
    if (type === 'boolean') return 'false';
    if (type === 'timestamp with time zone') return `now() + n * interval '1 second'`;
    if (type === 'jsonb' || type === 'json') return `'{}'`;
    if (type === 'ARRAY') return `'{}'`;
    throw new Error(`${table}.${name}: no value for ${type}`);
  };
  await query(
    database.db,
    `INSERT INTO ${table} (${columns.map((c) => c.name).join(', ')})
     SELECT ${columns.map(value).join(', ')} FROM generate_series(1, 3) AS n`,
    [a, b, table],
  );
}

/**
 * Every row of `table` as JSON text, sorted: what must be there, unchanged, after the migration.
 * With `only`, just those columns (columns later migrations add are not compared).
 */
async function rowsOf(database: Database, table: string, only?: readonly string[]): Promise<string[]> {
  const rows = await query<{ row: string }>(
    database.db,
    only
      ? `SELECT jsonb_object_agg(k, v ORDER BY k)::text AS row FROM ${table} t,
           jsonb_each(to_jsonb(t)) AS e(k, v) WHERE k = ANY($1::text[]) GROUP BY t.ctid`
      : `SELECT to_jsonb(t)::text AS row FROM ${table} t`,
    only ? [only] : [],
  );
  return rows.map((r) => r.row).sort();
}

/**
 * Columns a later migration drops after moving what they held elsewhere (its own migration test
 * checks the move): 0025 moves pending attempts' leases to `webhook_delivery_queue`.
 */
const DROPPED_LATER: Readonly<Record<string, readonly string[]>> = {
  webhook_deliveries: ['lease_token', 'leased_until'],
};

/** Rows of {@link rowsOf} without the columns `dropped`. */
function withoutColumns(rows: readonly string[], dropped: readonly string[]): string[] {
  return rows
    .map((row) => {
      const parsed = JSON.parse(row) as Record<string, unknown>;
      for (const column of dropped) delete parsed[column];
      return JSON.stringify(parsed);
    })
    .sort();
}

/** The column names of `table` now. */
async function columnsOf(database: Database, table: string): Promise<string[]> {
  const rows = await query<{ name: string }>(
    database.db,
    `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1`,
    [table],
  );
  return rows.map((r) => r.name);
}

describe('the migrations keying tenant tables by tenant_id first', () => {
  let dispose: (() => Promise<void>) | undefined;
  let database: Database;
  const [a, b, c] = [newId('tenant'), newId('tenant'), newId('tenant')];
  // A blob of two chunks (content of a's asset), one of b (its preview), and two unreachable ones:
  // a blob replaced by a newer upload and not removed yet, and an upload that never finished.
  const [current, preview, replaced, unfinished] = [
    newId('blob'),
    newId('blob'),
    newId('blob'),
    newId('blob'),
  ];
  const content = Buffer.concat([Buffer.alloc(CHUNK_BYTES, 'a'), Buffer.from('tail')]);
  const before: Record<string, string[]> = {};
  const columnsBefore: Record<string, string[]> = {};

  beforeAll(async () => {
    const empty = await emptyDatabase();
    dispose = empty.dispose;
    database = empty.database;
    const previous = await migrationsBefore(FIRST);
    try {
      await migrateWith(database, previous);
    } finally {
      await rm(previous, { recursive: true, force: true });
    }
    for (const table of SEEDED) await seedRows(database, table, a, b);
    await query(
      database.db,
      `INSERT INTO asset_files (asset_id, kind, tenant_id, blob_id, content_type, size, sha256, updated_at)
       VALUES ('asset_a', 'content', $1, $3, 'text/plain', $5, 'h', now()),
              ('asset_b', 'preview', $2, $4, 'text/plain', 1, 'h', now())`,
      [a, b, current, preview, content.length],
    );
    await query(
      database.db,
      `INSERT INTO asset_chunks (blob_id, seq, data)
       VALUES ($1, 0, $5), ($1, 1, $6), ($2, 0, 'p'), ($3, 0, 'old'), ($3, 1, 'old'), ($4, 0, 'partial')`,
      [
        current,
        preview,
        replaced,
        unfinished,
        content.subarray(0, CHUNK_BYTES),
        content.subarray(CHUNK_BYTES),
      ],
    );
    for (const table of [...SEEDED, 'asset_files']) {
      before[table] = await rowsOf(database, table);
      columnsBefore[table] = await columnsOf(database, table);
    }
    await runMigrations(database);
  });

  afterAll(async () => dispose?.());

  it('keeps every row of every table', async () => {
    for (const table of [...SEEDED, 'asset_files']) {
      expect(before[table], table).toHaveLength(table === 'asset_files' ? 2 : 3);
      const dropped = DROPPED_LATER[table] ?? [];
      const kept = (columnsBefore[table] ?? []).filter((c) => !dropped.includes(c));
      expect(withoutColumns(await rowsOf(database, table, kept), dropped), table).toEqual(
        withoutColumns(before[table] ?? [], dropped),
      );
    }
  });

  it("gives each chunk its asset's tenant, deletes the chunks no asset file points at, and serves the content", async () => {
    const chunks = await query<{ tenant_id: string; blob_id: string; seq: number }>(
      database.db,
      'SELECT tenant_id, blob_id, seq FROM asset_chunks ORDER BY blob_id, seq',
    );
    expect(chunks).toEqual(
      [
        { tenant_id: a, blob_id: current, seq: 0 },
        { tenant_id: a, blob_id: current, seq: 1 },
        { tenant_id: b, blob_id: preview, seq: 0 },
      ].sort((x, y) => x.blob_id.localeCompare(y.blob_id) || x.seq - y.seq),
    );
    const store = new PostgresStore(database.db);
    expect(await store.stat(a, current)).toBe(content.length);
    const stream = await store.get(a, current, 0, content.length - 1);
    expect(stream && (await text(stream))).toBe(content.toString());
    expect(await store.stat(b, current)).toBeUndefined();
    expect(await store.stat(b, preview)).toBe(1);
  });

  it('leads every key with tenant_id', async () => {
    const tables = new Map((await readSchema(database.db)).map((table) => [table.name, table]));
    for (const [table, columns] of Object.entries(PRIMARY_KEYS))
      expect(tables.get(table)?.primaryKey?.columns, table).toEqual(columns);
    for (const [table, [name, columns]] of Object.entries(UNIQUE_KEYS))
      expect(tables.get(table)?.uniques, table).toContainEqual({ name, columns });
    expect(tables.get('asset_chunks')?.columns).toContainEqual({ name: 'tenant_id', notNull: true });
  });

  it('lets another tenant hold the same keys, and still refuses them twice in one tenant', async () => {
    for (const table of [...SEEDED, 'asset_files', 'asset_chunks']) {
      const copy = `INSERT INTO ${table}
        SELECT (jsonb_populate_record(NULL::${table}, to_jsonb(t) || jsonb_build_object('tenant_id', $2::text))).*
        FROM ${table} t WHERE tenant_id = $1`;
      await query(database.db, copy, [a, c]);
      await expect(query(database.db, copy, [a, c]), table).rejects.toMatchObject({ code: '23505' });
    }
  });
});
