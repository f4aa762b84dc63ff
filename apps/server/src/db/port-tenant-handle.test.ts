import { describe, expect, it } from 'vitest';
import { toDomainError } from '../http/errors.js';
import { addNote, bodyOf, newId, noteBody, onPostgres, useNotesDatabase } from '../test/port-notes.js';
import { TenantShare, TenantShareExceeded } from './tenant-share.js';

// The data-access port's specification, on the embedded database and, with TEST_DATABASE_URL, on
// PostgreSQL: what a tenant's handle guarantees the other tenants.

const notes = useNotesDatabase();

describe('a tenant’s handle', () => {
  it('holds at most the tenant’s share: past it a statement waits, then is refused; others go on', async () => {
    const share = new TenantShare({ concurrency: 1, queueMs: 50 });
    const tenantA = notes.db.database.forTenant(share, 'tenant_a');
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
      expect(await bodyOf(notes.db.database.forTenant(share, 'tenant_b'), id)).toBeUndefined();
      expect(await bodyOf(notes.db.database.db, id)).toBeUndefined();
    }
    finish();
    await transaction;
    // The unit is back: A's next statement runs.
    expect(await bodyOf(tenantA, id)).toBe('a');
  });
});
