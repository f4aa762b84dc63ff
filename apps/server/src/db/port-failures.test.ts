import { describe, expect, it } from 'vitest';
import { toDomainError } from '../http/errors.js';
import { bodyOf, onPostgres, useNotesDatabase } from '../test/port-notes.js';
import { openDatabase } from './database.js';
import { int, rowOf, sql, statement } from './sql.js';

// The data-access port's specification on PostgreSQL (TEST_DATABASE_URL): how a statement the
// server cancels or a connection it ends reaches a service.

const notes = useNotesDatabase();

describe.skipIf(!onPostgres)('on PostgreSQL', () => {
  const sleep = statement({ name: 'port_test_sleep', sql: () => sql`SELECT pg_sleep(5)` });
  const backend = statement({
    name: 'port_test_backend',
    sql: () => sql`SELECT pg_backend_pid() AS pid`,
    row: rowOf<{ pid: number }>(),
  });

  it('a statement past the statement timeout is cancelled: 503 saying why, and the handle goes on', async () => {
    const database = await openDatabase({ databaseUrl: notes.db.url, statementTimeoutMs: 200 });
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
      await notes.db.database.db.run(terminate, { pid });
      while ((await notes.db.database.db.first(backendAlive, { pid }))?.alive) {}
    })();
    const failure = await notes.db.database.db
      .transaction(async (tx) => {
        reportPid((await tx.first(backend, {}))?.pid ?? 0);
        await killed;
        await tx.first(backend, {});
      })
      .catch((err: unknown) => err);
    expect(toDomainError(failure).code).toBe('SERVICE_UNAVAILABLE');
    await expect(notes.db.database.ping()).resolves.toBeUndefined();
  });
});
