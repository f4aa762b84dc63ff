import { describe, expect, it } from 'vitest';
import { TenantShare } from '../db/tenant-share.js';
import { isCitus } from '../test/citus.js';
import { expectApiError } from '../test/http-cases.js';
import { expectReplay, idempotentRequests } from '../test/idempotency.js';
import { genericPlan, query, scansOf, statementOf } from '../test/sql.js';
import { useTestApp } from '../test/test-app.js';
import * as repo from './idempotency.repo.js';

// The test clock moves only when a test moves it, so expiry is exact.
let now = Date.parse('2026-11-01T00:00:00.000Z');
// A long queue, so a request waiting for a share a test holds stays "running".
const share = new TenantShare({ concurrency: 4, queueMs: 60_000 });
const t = useTestApp({ clock: () => new Date(now), tenantShare: share, env: { IDEMPOTENCY_TTL_S: '60' } });
const { send, createPage, pageCount } = idempotentRequests(t);

describe('Idempotency-Key', () => {
  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a control character', 'ab\u0001cd'],
    ['a tab', 'ab\tcd'],
    ['a space', 'ab cd'],
    ['non-ASCII', 'clé'],
  ])('answers 400 VALIDATION_ERROR about the headers for a key that is %s', async (_name, key) => {
    const body = expectApiError(await createPage(key), 'VALIDATION_ERROR');
    expect(body.details).toEqual([
      { field: 'headers', issues: [expect.objectContaining({ path: ['idempotency-key'] })] },
    ]);
    expect(await pageCount()).toBe(0);
  });

  it('accepts 255 visible ASCII characters', async () => {
    const key = `${'!~'.repeat(127)}k`;
    const first = await createPage(key);
    expect(first.statusCode).toBe(201);
    expectReplay(first, await createPage(key));
  });

  it('is ignored on GET and DELETE, even when malformed', async () => {
    const list = await send('GET', '/v0/pages', '');
    expect(list.statusCode).toBe(200);
    expect(list.headers['idempotent-replayed']).toBeUndefined();
    const { pageId } = (await createPage(undefined)).json<{ pageId: string }>();
    expect((await send('DELETE', `/v0/pages/${pageId}`, 'k'.repeat(300))).statusCode).toBe(200);
  });

  it('expires after IDEMPOTENCY_TTL_S: the key runs anew and the tenant’s expired rows are swept', async () => {
    const first = await createPage('ttl');
    now += 59_000;
    expectReplay(first, await createPage('ttl'));
    now += 2_000;
    const fresh = await createPage('ttl');
    expect(fresh.statusCode).toBe(201);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(fresh.json().pageId).not.toBe(first.json().pageId);
    for (let i = 0; i < 17; i++) expect((await createPage(`old-${i}`)).statusCode).toBe(201);
    now += 61_000;
    const expired = async () => {
      const [row] = await query<{ mine: number; others: number }>(
        t.database.db,
        `SELECT count(*) FILTER (WHERE tenant_id = $2) AS mine, count(*) FILTER (WHERE tenant_id <> $2) AS others
         FROM idempotency_keys WHERE expires_at <= $1`,
        [new Date(now).toISOString(), t.tenant.tenantId],
      );
      return { mine: Number(row?.mine ?? 0), others: Number(row?.others ?? 0) };
    };
    const before = await expired();
    expect(before.mine).toBeGreaterThan(16);
    await createPage('sweeper');
    // A write sweeps expired rows of its own tenant only, at most 16 of them.
    expect(await expired()).toEqual({ mine: before.mine - 16, others: before.others });
    await createPage('sweeper-2');
    expect(await expired()).toEqual({ mine: 0, others: before.others });
  });
});

describe("the key lookup's kept plan", () => {
  // A connection keeps one plan per statement, made when the table was small: it must find the
  // key by the primary key at any size, not walk the tenant's live keys through the expiry index.
  it('reads the key through the primary key, on an empty table and on a full one', async (context) => {
    if (await isCitus(t.database.db))
      context.skip('a plan of one PostgreSQL: a cluster plans on its workers');
    const lookup = () =>
      statementOf(t.database.db, (db) =>
        repo.lockAndFind({ ...db, kind: 'tx' as const }, t.tenant.tenantId, 'k-plan', new Date(now)),
      );
    const keyScans = async () =>
      scansOf(await genericPlan(t.database.db, await lookup()), 'idempotency_keys');
    const PK = 'idempotency_keys_tenant_id_key_pk';
    expect(await keyScans()).toEqual([{ node: 'Index Scan', index: PK }]);
    await query(
      t.database.db,
      `INSERT INTO idempotency_keys (tenant_id, key, fingerprint, status_code, body, created_at, expires_at)
       SELECT $1, 'bulk-' || g, 'f', 201, '{}', $2, $2::timestamptz + interval '1 day' FROM generate_series(1, 2000) g`,
      [t.tenant.tenantId, new Date(now)],
    );
    await query(t.database.db, 'ANALYZE idempotency_keys');
    expect(await keyScans()).toEqual([{ node: 'Index Scan', index: PK }]);
    const kept = await statementOf(t.database.db, (db) =>
      repo.keep(
        { ...db, kind: 'tx' as const },
        {
          tenantId: t.tenant.tenantId,
          key: 'k-plan',
          fingerprint: 'f',
          statusCode: 201,
          body: '{}',
          sealedSecret: null,
          createdAt: new Date(now),
          expiresAt: new Date(now + 60_000),
        },
      ),
    );
    // The sweep reads expired keys only, and the key it keeps by the primary key: never every
    // key of the tenant, whatever the planner thinks a tenant holds.
    const conditions = JSON.stringify(await genericPlan(t.database.db, kept))
      .match(/"(Index|Recheck) Cond":"[^"]*"/g)
      ?.filter((cond) => !/expires_at <=|key = /.test(cond));
    expect(conditions ?? []).toEqual([]);
  });
});
