import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTestSettings } from '../config.js';
import { readSchema } from '../test/catalog.js';
import {
  CROSS_TENANT,
  ONE_SERVER_ONLY,
  oneServerOnlyNote,
  type Placement,
  placementsOf,
  schemaGaps,
  type TableFacts,
} from '../test/distribution.js';
import { classifyStatement, type StatementClass } from '../test/distribution-sql.js';
import { serverStatements } from '../test/statements.js';
import { createTestDatabase, type TestDatabase } from '../test/test-database.js';

// What sharding by tenant on Citus still lacks, measured on the migrated schema and on every
// statement the server defines; the gaps are kept in distribution.gaps.txt (docs/deploy.md).

const plan: Record<string, Placement> = { a: 'distributed', b: 'distributed', r: 'reference', l: 'local' };

const table = (name: string, facts: Partial<TableFacts> = {}): TableFacts => ({
  name,
  columns: [
    { name: 'tenant_id', notNull: true },
    { name: 'id', notNull: true },
  ],
  primaryKey: { name: `${name}_pkey`, columns: ['tenant_id', 'id'] },
  uniques: [],
  foreignKeys: [],
  ...facts,
});
const others = [table('b'), table('r'), table('l')];

describe('the schema check', () => {
  it('passes a distributed table keyed by (tenant_id, id)', () => {
    expect(schemaGaps([table('a'), ...others], plan)).toEqual({
      gaps: [],
      ready: ['a', 'b', 'l', 'r'],
      notReady: [],
    });
  });

  it('reports a primary key not led by tenant_id, and a table without tenant_id', () => {
    const byId = table('a', { primaryKey: { name: 'a_pkey', columns: ['id', 'tenant_id'] } });
    expect(schemaGaps([byId, ...others], plan).gaps).toEqual([
      'a: primary key a_pkey (id, tenant_id) does not lead with tenant_id',
    ]);
    const noTenant = table('a', {
      columns: [{ name: 'id', notNull: true }],
      primaryKey: { name: 'a_pkey', columns: ['id'] },
    });
    expect(schemaGaps([noTenant, ...others], plan)).toMatchObject({
      gaps: ['a: has no tenant_id column', 'a: primary key a_pkey (id) does not lead with tenant_id'],
      notReady: ['a'],
    });
  });

  it('reports a unique key without tenant_id, and accepts one that has it anywhere', () => {
    const uniques = [
      { name: 'a_email', columns: ['lower(email)'] },
      { name: 'a_tenant_email', columns: ['lower(email)', 'tenant_id'] },
    ];
    expect(schemaGaps([table('a', { uniques }), ...others], plan).gaps).toEqual([
      'a: unique a_email (lower(email)) does not include tenant_id',
    ]);
  });

  it('reports a foreign key between distributed tables that leaves tenant_id out', () => {
    const fk = (columns: string[], referencedColumns: string[]) => ({
      name: 'a_b_fk',
      columns,
      references: 'b',
      referencedColumns,
    });
    const byId = table('a', { foreignKeys: [fk(['b_id'], ['id'])] });
    expect(schemaGaps([byId, ...others], plan).gaps).toEqual([
      'a: foreign key a_b_fk (b_id) -> b (id) does not include tenant_id on both sides',
    ]);
    const withTenant = table('a', { foreignKeys: [fk(['tenant_id', 'b_id'], ['tenant_id', 'id'])] });
    expect(schemaGaps([withTenant, ...others], plan).gaps).toEqual([]);
  });

  it('reports a reference table pointing at a distributed one, and a table with no placement', () => {
    const r = table('r', {
      foreignKeys: [{ name: 'r_a_fk', columns: ['a_id'], references: 'a', referencedColumns: ['id'] }],
    });
    expect(schemaGaps([table('a'), table('b'), r, table('l'), table('x')], plan).gaps).toEqual([
      'r: foreign key r_a_fk (a_id) -> a (id): a reference table cannot reference a distributed one',
      'x: has no placement (distributed, reference or local)',
    ]);
  });
});

describe('the statement check', () => {
  const route = (text: string) => classifyStatement(text, plan);

  it('routes a statement filtered by tenant_id = $n to one shard', () => {
    expect(route('SELECT * FROM a WHERE tenant_id = $1 AND id = $2')).toMatchObject({
      route: 'single-shard',
      tables: ['a'],
    });
    expect(route('UPDATE a SET x = $1 WHERE "tenant_id" = $2::text')).toMatchObject({
      route: 'single-shard',
    });
  });

  it('sends a statement filtered by id alone to every shard', () => {
    expect(route('UPDATE a SET x = $1 WHERE id = $2')).toEqual({
      route: 'multi-shard',
      tables: ['a'],
      reasons: ['a not filtered by tenant_id = $n'],
      nodeLocal: false,
    });
    expect(route('SELECT * FROM a WHERE tenant_id = ANY($1)')).toMatchObject({ route: 'multi-shard' });
  });

  it('follows a join on tenant_id to the filtered side, and not a join on another column', () => {
    const onTenant =
      'SELECT * FROM a x JOIN b y ON y.tenant_id = x.tenant_id AND y.a_id = x.id WHERE x.tenant_id = $1';
    expect(route(onTenant)).toMatchObject({ route: 'single-shard', tables: ['a', 'b'] });
    const onId = 'SELECT * FROM a x LEFT JOIN b y ON y.a_id = x.id WHERE x.tenant_id = $1';
    expect(route(onId)).toMatchObject({
      route: 'multi-shard',
      reasons: ['b not filtered by tenant_id = $n'],
    });
  });

  it('reads a subquery and a CTE named like a table as their own scopes', () => {
    const sub = 'SELECT * FROM a WHERE tenant_id = $1 AND id IN (SELECT a_id FROM b WHERE tenant_id = $1)';
    expect(route(sub)).toMatchObject({ route: 'single-shard' });
    const unfiltered = 'SELECT * FROM a WHERE tenant_id = $1 AND id IN (SELECT a_id FROM b)';
    expect(route(unfiltered)).toMatchObject({ route: 'multi-shard' });
    expect(route('WITH b AS (SELECT 1) SELECT * FROM b')).toMatchObject({
      route: 'no-distributed-table',
      tables: [],
    });
  });

  it('pins an INSERT by the value of its tenant_id column', () => {
    expect(route('INSERT INTO a ("id", "tenant_id") VALUES ($1, $2)')).toMatchObject({
      route: 'single-shard',
    });
    expect(route('INSERT INTO a (id, tenant_id) SELECT * FROM unnest($1::text[], $2::text[])')).toMatchObject(
      {
        route: 'multi-shard',
      },
    );
    const copied = 'INSERT INTO a (id, tenant_id) SELECT y.id, y.tenant_id FROM b y WHERE y.tenant_id = $1';
    expect(route(copied)).toMatchObject({ route: 'single-shard' });
  });

  it('tells statements on reference and local tables, two tenant parameters and node-local calls apart', () => {
    expect(route('SELECT * FROM r JOIN l ON l.id = r.id WHERE r.id = $1')).toMatchObject({
      route: 'no-distributed-table',
    });
    expect(
      route('SELECT * FROM a WHERE tenant_id = $1 UNION SELECT * FROM b WHERE tenant_id = $2'),
    ).toMatchObject({
      route: 'multi-shard',
      reasons: ['filtered by more than one tenant parameter ($1, $2)'],
    });
    expect(route('SELECT pg_advisory_xact_lock(1, hashtext($1))')).toMatchObject({ nodeLocal: true });
  });

  it('does not take a tenant_id = $n under NOT for a filter', () => {
    const sweep =
      'DELETE FROM a WHERE id IN (SELECT id FROM a WHERE expired AND NOT (tenant_id = $1 AND id = $2))';
    expect(route(sweep)).toMatchObject({
      route: 'multi-shard',
      reasons: ['a not filtered by tenant_id = $n'],
    });
  });
});

const settings = loadTestSettings();
let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase(settings.databaseUrl);
}, 60_000);
afterAll(async () => {
  await testDb?.dispose();
});

/** The committed report: the gaps' counts, then one line per gap (a new statement without one changes nothing). */
function render(tables: readonly TableFacts[], classes: readonly Classified[]): string {
  const placements = placementsOf(tables);
  const schema = schemaGaps(tables, placements);
  const multi = classes.filter((c) => c.route === 'multi-shard');
  const byDesign = multi.filter((c) => c.name in CROSS_TENANT && !(c.name in ONE_SERVER_ONLY));
  const refused = multi.filter((c) => c.name in ONE_SERVER_ONLY);
  const unfiltered = multi.filter((c) => !(c.name in CROSS_TENANT));
  const routes = new Map(classes.map((c) => [c.name, c.route]));
  const stale = Object.keys(CROSS_TENANT)
    .filter((name) => routes.get(name) !== 'multi-shard')
    .map((name) => `${name}: listed as cross-tenant but ${routes.get(name) ?? 'not defined'}`);
  const distributed = tables.filter((t) => placements[t.name] === 'distributed').map((t) => t.name);
  return [
    '# Generated by src/db/distribution.test.ts: what sharding by tenant_id on Citus still lacks.',
    '# Re-measure: cd apps/server && npx vitest run src/db/distribution.test.ts -u. Do not edit.',
    '',
    `tables: ${tables.length}, ${schema.ready.length} ready, ${schema.notReady.length} not ready`,
    `distributed tables: ${distributed.length}, ${distributed.filter((t) => schema.ready.includes(t)).length} ready`,
    `multi-shard statements: ${multi.length}, ${byDesign.length} cross-tenant by design that Citus runs, ${refused.length} of one server only, ${unfiltered.length} missing a tenant filter`,
    `node-local statements (advisory locks, NOTIFY; every connection goes through the coordinator): ${classes.filter((c) => c.nodeLocal).length}`,
    '',
    '## Schema',
    ...schema.gaps,
    '',
    '## Statements missing a tenant filter',
    ...unfiltered.map((c) => `${c.name}: ${c.reasons.join('; ')}`),
    '',
    '## Statements cross-tenant by design (Citus runs them as multi-shard statements)',
    ...byDesign.map((c) => `${c.name}: ${CROSS_TENANT[c.name]}`),
    ...stale,
    '',
    '## Statements of one server only: Citus refuses them, and the dispatcher on a cluster runs per tenant',
    ...refused.map((c) => `${c.name}: ${oneServerOnlyNote(c.name)}`),
    '',
    '## Node-local statements',
    ...classes.filter((c) => c.nodeLocal).map((c) => c.name),
    '',
  ].join('\n');
}

type Classified = StatementClass & { name: string };

describe('sharding by tenant today', () => {
  it('has the gaps recorded in distribution.gaps.txt, no more and no fewer', async () => {
    const tables = await readSchema(testDb.database.db);
    const statements = [...(await serverStatements())].sort(([a], [b]) => a.localeCompare(b));
    expect(statements.length).toBeGreaterThan(100);
    const placements = placementsOf(tables);
    const classes = statements.map(([name, text]) => ({ name, ...classifyStatement(text, placements) }));
    const count = (route: string) => classes.filter((c) => c.route === route).length;
    console.info(
      `sharding by tenant: ${classes.length} statements, ${count('single-shard')} single-shard, ${count('multi-shard')} multi-shard, ${count('no-distributed-table')} on no distributed table`,
    );
    await expect(render(tables, classes)).toMatchFileSnapshot('./distribution.gaps.txt');
  });
});
