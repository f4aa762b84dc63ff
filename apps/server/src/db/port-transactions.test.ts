import { describe, expect, it } from 'vitest';
import { addNote, bodyOf, newId, noteBody, useNotesDatabase } from '../test/port-notes.js';
import type { Handle } from './port.js';
import { TenantShare } from './tenant-share.js';

// The data-access port's specification, on the embedded database and, with TEST_DATABASE_URL, on
// PostgreSQL: what a service can rely on when it runs statements in a transaction.

const notes = useNotesDatabase();

describe('a transaction', () => {
  it('sees its own writes, and commits them when its body resolves', async () => {
    const id = newId();
    const seen = await notes.db.database.db.transaction(async (tx) => {
      await tx.run(addNote, { id, body: 'kept' });
      return bodyOf(tx, id);
    });
    expect(seen).toBe('kept');
    expect(await bodyOf(notes.db.database.db, id)).toBe('kept');
  });

  it('rolls everything back when its body throws, and passes the throw on', async () => {
    const id = newId();
    const failure = await notes.db.database.db
      .transaction(async (tx) => {
        await tx.run(addNote, { id, body: 'lost' });
        throw new Error('the body failed');
      })
      .catch((err: unknown) => err);
    expect(failure).toEqual(new Error('the body failed'));
    expect(await bodyOf(notes.db.database.db, id)).toBeUndefined();
  });

  it('nested, is a savepoint: a failed one undoes only its own writes, the outer one commits', async () => {
    const [outer, inner, kept] = [newId(), newId(), newId()];
    await notes.db.database.db.transaction(async (tx) => {
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
    expect(await bodyOf(notes.db.database.db, outer)).toBe('outer');
    expect(await bodyOf(notes.db.database.db, inner)).toBeUndefined();
    expect(await bodyOf(notes.db.database.db, kept)).toBe('kept');
  });

  it('nested, rolls back with the transaction around it even when the savepoint was released', async () => {
    const id = newId();
    await notes.db.database.db
      .transaction(async (tx) => {
        await tx.transaction((savepoint) => savepoint.run(addNote, { id, body: 'released' }));
        throw new Error('outer failed');
      })
      .catch(() => undefined);
    expect(await bodyOf(notes.db.database.db, id)).toBeUndefined();
  });

  it('refuses statements once it is over, instead of running them outside it', async () => {
    let escaped: Handle | undefined;
    await notes.db.database.db.transaction(async (tx) => {
      escaped = tx;
    });
    await expect((escaped as Handle).run(addNote, { id: newId(), body: 'late' })).rejects.toThrow(
      /the transaction is over/,
    );
  });
});

describe('the outer handle inside its own transaction', () => {
  it('refuses a statement or a transaction on it, or on a tenant handle of it, and keeps nothing', async () => {
    const db = notes.db.database.db;
    const tenant = notes.db.database.forTenant(
      new TenantShare({ concurrency: 4, queueMs: 1000 }),
      'tenant_c',
    );
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
