import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../db/database.js';
import { runMigrations } from '../db/migrate.js';
import { adjustCounter, readCounter } from './counters.js';

// Tenant counters on a migrated embedded PostgreSQL (PGlite): what a collection's `totalCount` reads.

let database: Database;
beforeAll(async () => {
  database = await openDatabase({});
  await runMigrations(database);
});
afterAll(async () => {
  await database.close();
});

describe('tenant counters', () => {
  it('read 0 before the first adjustment', async () => {
    expect(await readCounter(database.db, 'tenant_never', 'pages')).toBe(0);
  });

  it('add every adjustment, up and down, also when made concurrently in transactions', async () => {
    const { db } = database;
    await adjustCounter(db, 'tenant_a', 'pages', 5);
    expect(await readCounter(db, 'tenant_a', 'pages')).toBe(5);
    const deltas = [3, -2, 7, -1, 4, 1, -6, 2];
    await Promise.all(
      deltas.map((delta) => db.transaction((tx) => adjustCounter(tx, 'tenant_a', 'pages', delta))),
    );
    expect(await readCounter(db, 'tenant_a', 'pages')).toBe(5 + 8);
    await adjustCounter(db, 'tenant_a', 'pages', -13);
    expect(await readCounter(db, 'tenant_a', 'pages')).toBe(0);
  });

  it('keep tenants and scopes apart', async () => {
    const { db } = database;
    await adjustCounter(db, 'tenant_b', 'pages', 2);
    await adjustCounter(db, 'tenant_b', 'accounts', 9);
    await adjustCounter(db, 'tenant_c', 'pages', 4);
    expect(await readCounter(db, 'tenant_b', 'pages')).toBe(2);
    expect(await readCounter(db, 'tenant_b', 'accounts')).toBe(9);
    expect(await readCounter(db, 'tenant_c', 'pages')).toBe(4);
    expect(await readCounter(db, 'tenant_c', 'accounts')).toBe(0);
  });

  it('return counts beyond 32 bits as exact numbers', async () => {
    await adjustCounter(database.db, 'tenant_d', 'assets', 2 ** 33 + 1);
    expect(await readCounter(database.db, 'tenant_d', 'assets')).toBe(2 ** 33 + 1);
  });

  it('roll back with the transaction they were adjusted in', async () => {
    const { db } = database;
    await db
      .transaction(async (tx) => {
        await adjustCounter(tx, 'tenant_e', 'pages', 3);
        expect(await readCounter(tx, 'tenant_e', 'pages')).toBe(3);
        throw new Error('roll back');
      })
      .catch(() => {});
    expect(await readCounter(db, 'tenant_e', 'pages')).toBe(0);
  });
});
