import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTestSettings } from '../config.js';
import { toDomainError } from '../http/errors.js';
import { createTestDatabase, type TestDatabase } from '../test/test-database.js';
import { openDatabase } from './database.js';
import type { Handle } from './port.js';
import { pages } from './schema/index.js';
import { columns, int, json, jsonText, nullable, rowOf, sql, statement, text, timestamptz } from './sql.js';
import { TenantShare, TenantShareExceeded } from './tenant-share.js';

// The data-access port's specification, on the embedded database and, with TEST_DATABASE_URL, on
// PostgreSQL: what a service can rely on when it runs a statement on a handle.

const settings = loadTestSettings();
const onPostgres = Boolean(settings.databaseUrl);

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase(settings.databaseUrl);
  await testDb.database.db.run(createNotes, {});
}, 60_000);
afterAll(async () => {
  await testDb?.dispose();
});

const createNotes = statement({
  name: '',
  sql: () => sql`CREATE TABLE port_notes (id text PRIMARY KEY, body text NOT NULL)`,
});
const addNote = statement({
  name: 'port_test_add_note',
  params: { id: text, body: text },
  sql: (p) => sql`INSERT INTO port_notes (id, body) VALUES (${p.id}, ${p.body})`,
});
const noteBody = statement({
  name: 'port_test_note_body',
  params: { id: text },
  sql: (p) => sql`SELECT body FROM port_notes WHERE id = ${p.id}`,
  row: rowOf<{ body: string }>(),
});
const bodyOf = async (db: Handle, id: string) => (await db.first(noteBody, { id }))?.body;

let next = 0;
const newId = () => {
  next += 1;
  return `note_${next}`;
};

describe('a statement outside a transaction', () => {
  it('returns its rows under the keys it selects, typed as the schema reads them', async () => {
    const echo = statement({
      name: 'port_test_echo',
      params: { id: text, at: timestamptz, body: json, n: int, none: nullable(text) },
      sql: (
        p,
      ) => sql`SELECT ${p.id}::text AS id, ${p.at}::timestamptz AS "createdAt", ${p.body}::jsonb AS body,
        ${p.n}::int4 AS n, 9007199254740991::int8 AS big, ${p.none}::text AS none`,
    });
    const at = new Date('2026-11-27T10:11:12.345Z');
    const row = await testDb.database.db.first(echo, { id: 'a', at, body: [{ x: 1 }], n: 7, none: null });
    expect(row).toEqual({
      id: 'a',
      createdAt: at,
      body: [{ x: 1 }],
      n: 7,
      big: 9007199254740991,
      none: null,
    });
    // Twice: on PostgreSQL the second run reuses the statement prepared on the connection.
    expect(await testDb.database.db.first(echo, { id: 'a', at, body: [{ x: 1 }], n: 7, none: null })).toEqual(
      row,
    );
  });

  it('selects a table’s columns as its rows are typed (`columns`)', async () => {
    const emptyPage = statement({
      name: 'port_test_page_columns',
      sql: () => sql`SELECT ${columns(pages)} FROM pages WHERE false`,
    });
    expect(await testDb.database.db.all(emptyPage, {})).toEqual([]);
    expect(emptyPage.text).toContain('"page_context" AS "pageContext"');
  });

  it('counts the rows it wrote', async () => {
    const id = newId();
    expect(await testDb.database.db.run(addNote, { id, body: 'b' })).toBe(1);
    const none = statement({
      name: 'port_test_update_none',
      sql: () => sql`UPDATE port_notes SET body = body WHERE false`,
    });
    expect(await testDb.database.db.run(none, {})).toBe(0);
  });

  it('fails with the driver’s error (SQLSTATE and constraint), and the handle goes on', async () => {
    const id = newId();
    await testDb.database.db.run(addNote, { id, body: 'first' });
    const failure = await testDb.database.db.run(addNote, { id, body: 'again' }).catch((err: unknown) => err);
    expect(failure).toMatchObject({ code: '23505', constraint: 'port_notes_pkey' });
    expect(await bodyOf(testDb.database.db, id)).toBe('first');
  });
});

describe('a transaction', () => {
  it('sees its own writes, and commits them when its body resolves', async () => {
    const id = newId();
    const seen = await testDb.database.db.transaction(async (tx) => {
      await tx.run(addNote, { id, body: 'kept' });
      return bodyOf(tx, id);
    });
    expect(seen).toBe('kept');
    expect(await bodyOf(testDb.database.db, id)).toBe('kept');
  });

  it('rolls everything back when its body throws, and passes the throw on', async () => {
    const id = newId();
    const failure = await testDb.database.db
      .transaction(async (tx) => {
        await tx.run(addNote, { id, body: 'lost' });
        throw new Error('the body failed');
      })
      .catch((err: unknown) => err);
    expect(failure).toEqual(new Error('the body failed'));
    expect(await bodyOf(testDb.database.db, id)).toBeUndefined();
  });

  it('nested, is a savepoint: a failed one undoes only its own writes, the outer one commits', async () => {
    const [outer, inner, kept] = [newId(), newId(), newId()];
    await testDb.database.db.transaction(async (tx) => {
      await tx.run(addNote, { id: outer, body: 'outer' });
      await tx
        .transaction(async (savepoint) => {
          await savepoint.run(addNote, { id: inner, body: 'inner' });
          expect(await bodyOf(savepoint, outer)).toBe('outer');
          throw new Error('inner failed');
        })
        .catch(() => undefined);
      expect(await bodyOf(tx, inner)).toBeUndefined();
      await tx.transaction((savepoint) => savepoint.run(addNote, { id: kept, body: 'kept' }));
    });
    expect(await bodyOf(testDb.database.db, outer)).toBe('outer');
    expect(await bodyOf(testDb.database.db, inner)).toBeUndefined();
    expect(await bodyOf(testDb.database.db, kept)).toBe('kept');
  });

  it('nested, rolls back with the transaction around it even when the savepoint was released', async () => {
    const id = newId();
    await testDb.database.db
      .transaction(async (tx) => {
        await tx.transaction((savepoint) => savepoint.run(addNote, { id, body: 'released' }));
        throw new Error('outer failed');
      })
      .catch(() => undefined);
    expect(await bodyOf(testDb.database.db, id)).toBeUndefined();
  });

  it('refuses statements once it is over, instead of running them outside it', async () => {
    let escaped: Handle | undefined;
    await testDb.database.db.transaction(async (tx) => {
      escaped = tx;
    });
    await expect((escaped as Handle).run(addNote, { id: newId(), body: 'late' })).rejects.toThrow(
      /the transaction is over/,
    );
  });
});

describe('the outer handle inside its own transaction', () => {
  it('refuses a statement or a transaction on it, or on a tenant handle of it, and keeps nothing', async () => {
    const db = testDb.database.db;
    const tenant = testDb.database.forTenant(new TenantShare({ concurrency: 4, queueMs: 1000 }), 'tenant_c');
    const [kept, outside, nested] = [newId(), newId(), newId()];
    await expect(
      db.transaction(async (tx) => {
        await tx.run(addNote, { id: kept, body: 'inside' });
        await db.run(addNote, { id: outside, body: 'outside' });
      }),
    ).rejects.toThrow(
      /statement port_test_add_note: run on the database handle inside one of its transactions/,
    );
    await expect(
      db.transaction(async () => {
        await tenant.first(noteBody, { id: kept });
      }),
    ).rejects.toThrow(/inside one of its transactions/);
    await expect(
      db.transaction(() => db.transaction((inner) => inner.run(addNote, { id: nested, body: 'nested' }))),
    ).rejects.toThrow(/transaction: run on the database handle inside one of its transactions/);
    // The transaction that tried rolled back; the handle works again once it is over.
    for (const id of [kept, outside, nested]) expect(await bodyOf(db, id)).toBeUndefined();
    await db.run(addNote, { id: outside, body: 'after' });
    expect(await bodyOf(db, outside)).toBe('after');
  });
});

describe('a tenant’s handle', () => {
  it('holds at most the tenant’s share: past it a statement waits, then is refused; others go on', async () => {
    const share = new TenantShare({ concurrency: 1, queueMs: 50 });
    const tenantA = testDb.database.forTenant(share, 'tenant_a');
    const id = newId();
    let finish: () => void = () => {};
    const open = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let started: () => void = () => {};
    const holding = new Promise<void>((resolve) => {
      started = resolve;
    });
    // A's one unit is held by an open transaction.
    const transaction = tenantA.transaction(async (tx) => {
      await tx.run(addNote, { id, body: 'a' });
      started();
      await open;
    });
    await holding;
    const refused = await tenantA.first(noteBody, { id }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(TenantShareExceeded);
    expect(toDomainError(refused)).toMatchObject({ code: 'RATE_LIMITED' });
    if (onPostgres) {
      // Another tenant, and work of no tenant, use their own connections meanwhile. (PGlite has
      // one session: everyone's statements wait for the open transaction there.)
      expect(await bodyOf(testDb.database.forTenant(share, 'tenant_b'), id)).toBeUndefined();
      expect(await bodyOf(testDb.database.db, id)).toBeUndefined();
    }
    finish();
    await transaction;
    // The unit is back: A's next statement runs.
    expect(await bodyOf(tenantA, id)).toBe('a');
  });
});

describe('JSON results as bytes (`json-bytes`)', () => {
  const stored = '{"b": [1,2],  "a":"é \\"q\\" 🙂"}'; // as written: spacing and order kept
  const jsonValues = statement({
    name: 'port_test_json_bytes',
    params: { value: jsonText },
    sql: (p) =>
      sql`SELECT n::int4 AS n, j AS json FROM (VALUES (1, ${p.value}::json), (2, NULL::json)) AS v(n, j) ORDER BY n`,
    row: rowOf<{ n: number; json: Buffer | string | null }>(),
    format: 'json-bytes',
  });

  it('give the text stored, byte for byte, and nothing a driver parsed', async () => {
    const rows = await testDb.database.db.all(jsonValues, { value: stored });
    expect(rows.map((row) => row.n)).toEqual([1, 2]);
    expect(rows[0]?.json?.toString()).toBe(stored);
    expect(rows[1]?.json).toBeNull();
    // PostgreSQL's binary results are bytes, never JavaScript strings; PGlite gives the text.
    if (onPostgres) expect(Buffer.isBuffer(rows[0]?.json)).toBe(true);
    else expect(typeof rows[0]?.json).toBe('string');
  });

  it('keep their bytes after the connection reads more', async () => {
    const [first] = await testDb.database.db.all(jsonValues, { value: stored });
    await testDb.database.db.all(jsonValues, { value: '"x"'.padEnd(100_000, ' ') });
    expect(first?.json?.toString()).toBe(stored);
  });

  it('give jsonb as its text too (columns before migration 0012)', async () => {
    const jsonb = statement({
      name: 'port_test_jsonb_bytes',
      sql: () => sql`SELECT '{"b": 1, "a": [2]}'::jsonb AS json`,
      row: rowOf<{ json: Buffer | string }>(),
      format: 'json-bytes',
    });
    const [row] = await testDb.database.db.all(jsonb, {});
    expect(JSON.parse(row?.json.toString() ?? '')).toEqual({ a: [2], b: 1 });
  });
});

describe.skipIf(!onPostgres)('on PostgreSQL', () => {
  const sleep = statement({ name: 'port_test_sleep', sql: () => sql`SELECT pg_sleep(5)` });
  const backend = statement({
    name: 'port_test_backend',
    sql: () => sql`SELECT pg_backend_pid() AS pid`,
    row: rowOf<{ pid: number }>(),
  });

  it('a statement past the statement timeout is cancelled: 503 saying why, and the handle goes on', async () => {
    const database = await openDatabase({ databaseUrl: testDb.url, statementTimeoutMs: 200 });
    try {
      const failure = await database.db.run(sleep, {}).catch((err: unknown) => err);
      expect(failure).toMatchObject({ code: '57014' });
      const answer = toDomainError(failure);
      expect(answer.code).toBe('SERVICE_UNAVAILABLE');
      expect(answer.message).toMatch(/more database time than one request may use/);
      expect(await bodyOf(database.db, 'none')).toBeUndefined();
    } finally {
      await database.close();
    }
  });

  it('a connection lost inside a transaction fails it as unavailable, and the pool recovers', async () => {
    const terminate = statement({
      name: 'port_test_terminate',
      params: { pid: int },
      sql: (p) => sql`SELECT pg_terminate_backend(${p.pid}::int)`,
    });
    const backendAlive = statement({
      name: 'port_test_backend_alive',
      params: { pid: int },
      sql: (p) => sql`SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = ${p.pid}) AS alive`,
      row: rowOf<{ alive: boolean }>(),
    });
    // The server ends this backend while the transaction is idle between statements, as a
    // shutdown does (57P01): the client emits 'error' with no query running. The kill runs on
    // another connection, started outside the transaction (inside, the handle refuses it).
    let reportPid: (pid: number) => void = () => {};
    const pidKnown = new Promise<number>((resolve) => {
      reportPid = resolve;
    });
    const killed = (async () => {
      const pid = await pidKnown;
      await testDb.database.db.run(terminate, { pid });
      while ((await testDb.database.db.first(backendAlive, { pid }))?.alive) {}
    })();
    const failure = await testDb.database.db
      .transaction(async (tx) => {
        reportPid((await tx.first(backend, {}))?.pid ?? 0);
        await killed;
        await tx.first(backend, {});
      })
      .catch((err: unknown) => err);
    expect(toDomainError(failure).code).toBe('SERVICE_UNAVAILABLE');
    await expect(testDb.database.ping()).resolves.toBeUndefined();
  });
});
