import { describe, expect, it } from 'vitest';
import { requireCitus, useCitusProbe } from '../test/citus.js';
import { distributeTables, placementOf } from './distribute.js';

// `migrate` places tables on a Citus cluster (TEST_DATABASE_URL at a coordinator with workers,
// `pnpm test:citus --router`); on plain PostgreSQL it must leave everything as it is.

const citusProbe = useCitusProbe();

describe('where migrate puts a table', () => {
  it('distributes tenant tables and keeps the listed global ones reference or local', () => {
    expect(placementOf('pages', true)).toBe('distributed');
    expect(placementOf('a_table_added_later', true)).toBe('distributed');
    expect(placementOf('api_keys', true)).toBe('reference');
    expect(placementOf('tenants', false)).toBe('reference');
    expect(placementOf('rate_limits', false)).toBe('local');
    expect(placementOf('drizzle.__drizzle_migrations', false)).toBe('local');
    expect(placementOf('a_global_table_added_later', false)).toBeUndefined();
  });
});

describe('distributing on the database under test', () => {
  it('changes nothing on plain PostgreSQL', async (context) => {
    const { client, citus } = citusProbe();
    if (!client || citus) {
      context.skip('needs TEST_DATABASE_URL at a plain PostgreSQL server');
      return;
    }
    expect(await distributeTables(client)).toEqual({ cluster: false, changed: [] });
  });

  it('on a cluster: every table placed once, a later tenant table joins the group, a global one must be listed', async (context) => {
    const db = requireCitus(citusProbe(), context);
    if (!db) return;
    const placed = async () =>
      (
        await db.query<{ name: string; method: string; colocation: number }>(
          `SELECT logicalrelid::text AS name, partmethod::text AS method, colocationid AS colocation
           FROM pg_dist_partition ORDER BY 1`,
        )
      ).rows;
    const before = await placed();
    const hashed = before.filter((t) => t.method === 'h');
    expect(hashed.map((t) => t.name)).toContain('pages');
    expect(new Set(hashed.map((t) => t.colocation)).size).toBe(1);
    expect(before.filter((t) => t.method === 'n').map((t) => t.name)).toEqual([
      'api_keys',
      'server_settings',
      'tenants',
    ]);
    expect(before.map((t) => t.name)).not.toContain('rate_limits');

    expect(await distributeTables(db)).toEqual({ cluster: true, changed: [] });

    await db.query(
      'CREATE TABLE later_notes (tenant_id text NOT NULL, id text NOT NULL, PRIMARY KEY (tenant_id, id))',
    );
    expect(await distributeTables(db)).toEqual({
      cluster: true,
      changed: [{ table: 'later_notes', placement: 'distributed' }],
    });
    const later = (await placed()).find((t) => t.name === 'later_notes');
    expect(later?.colocation).toBe(hashed[0]?.colocation);

    await db.query('CREATE TABLE later_globals (id text PRIMARY KEY)');
    await expect(distributeTables(db)).rejects.toThrow(/later_globals/);
    await db.query('DROP TABLE later_globals');
  }, 120_000);
});
