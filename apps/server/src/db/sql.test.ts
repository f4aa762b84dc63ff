import { describe, expect, it } from 'vitest';
import { pages } from './schema/index.js';
import {
  assignments,
  columns,
  insertValues,
  int,
  joined,
  json,
  nullable,
  type Param,
  raw,
  type Sql,
  sql,
  statement,
  text,
  timestamptz,
  timestamptzArray,
} from './sql.js';

describe('statement', () => {
  it('numbers each parameter once, in the order the text first places it, and orders the values so', () => {
    const s = statement({
      name: '',
      params: { tenantId: text, limit: int },
      sql: (p) => sql`SELECT 1 FROM pages WHERE tenant_id = ${p.tenantId} LIMIT ${p.limit} OFFSET ${p.limit}`,
    });
    expect(s.text).toBe('SELECT 1 FROM pages WHERE tenant_id = $1 LIMIT $2 OFFSET $2');
    expect(s.values({ limit: 5, tenantId: 'tenant_a' })).toEqual(['tenant_a', 5]);
  });

  it('composes pieces written apart: a piece places its parameters, the statement numbers them', () => {
    // A CTE written in one file, over parameters it names; the statement using it numbers them
    // after its own, wherever the piece lands.
    const due = (p: { now: Param<Date> }): Sql => sql`due AS (SELECT id FROM jobs WHERE run_at <= ${p.now})`;
    const s = statement({
      name: '',
      params: { token: text, now: timestamptz },
      sql: (p) => sql`WITH ${due(p)} UPDATE jobs SET token = ${p.token} WHERE id IN (SELECT id FROM due)`,
    });
    expect(s.text).toBe(
      'WITH due AS (SELECT id FROM jobs WHERE run_at <= $1) UPDATE jobs SET token = $2 WHERE id IN (SELECT id FROM due)',
    );
    const now = new Date('2026-11-27T10:00:00.000Z');
    expect(s.values({ token: 't', now })).toEqual(['2026-11-27T10:00:00.000Z', 't']);
  });

  it('encodes each value by its codec: JSON as its text (an array stays JSON), dates as ISO, null kept', () => {
    const s = statement({
      name: '',
      params: { body: json, at: nullable(timestamptz), ats: timestamptzArray },
      sql: (p) => sql`SELECT ${p.body}::jsonb, ${p.at}::timestamptz, ${p.ats}::timestamptz[]`,
    });
    expect(s.values({ body: [1, 'a'], at: null, ats: [new Date(0)] })).toEqual([
      '[1,"a"]',
      null,
      ['1970-01-01T00:00:00.000Z'],
    ]);
    expect(s.values({ body: { a: 1 }, at: undefined, ats: [] })).toEqual(['{"a":1}', null, []]);
  });

  it('refuses a name already given to another text, and accepts the same definition twice', () => {
    const define = (limit: string) =>
      statement({ name: 'sql_test_unique_name', sql: () => sql`SELECT ${raw(limit)}` });
    define('1');
    expect(() => define('1')).not.toThrow();
    expect(() => define('2')).toThrow(/another statement already has this name/);
  });

  it('refuses a parameter the statement does not declare (a piece given another statement’s)', () => {
    let foreign: Param | undefined;
    statement({
      name: '',
      params: { id: text },
      sql: (p) => {
        foreign = p.id;
        return sql`${p.id}`;
      },
    });
    expect(() =>
      statement({
        name: 'sql_test_foreign',
        params: { id: text },
        sql: () => sql`SELECT ${foreign as Param}`,
      }),
    ).toThrow(/parameter id is not one it declares/);
  });

  it('refuses a value placed in the text', () => {
    const value = 'x' as unknown as Sql;
    expect(() => sql`SELECT ${value}`).toThrow(/never values/);
  });
});

describe('table pieces', () => {
  it('select a table’s columns under its TypeScript keys, aliased and prefixed for a join', () => {
    const s = statement({
      name: '',
      sql: () => sql`SELECT ${columns(pages, { alias: 'p', prefix: 'page.', keys: ['id', 'brandId'] })}`,
    });
    expect(s.text).toBe('SELECT p."id" AS "page.id", p."brand_id" AS "page.brandId"');
    expect(() => columns(pages, { keys: ['nope'] })).toThrow(/no column nope/);
  });

  it('insert and update the columns named by TypeScript keys', () => {
    const s = statement({
      name: '',
      params: { id: text, brandId: text, updatedAt: timestamptz },
      sql: (p) =>
        sql`INSERT INTO pages ${insertValues(pages, { id: p.id, brandId: p.brandId })} ON CONFLICT (id) DO UPDATE SET ${assignments(pages, { brandId: p.brandId, updatedAt: p.updatedAt })}`,
    });
    expect(s.text).toBe(
      'INSERT INTO pages ("id", "brand_id") VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET "brand_id" = $2, "updated_at" = $3',
    );
  });

  it('read a joined row back without its prefix, or nothing when the join found none', () => {
    expect(joined({ id: 'a', 'p.id': 'p1', 'p.name': 'n' }, 'p.')).toEqual({ id: 'p1', name: 'n' });
    expect(joined({ id: 'a', 'p.id': null, 'p.name': null }, 'p.')).toBeUndefined();
  });
});
