import { afterAll, describe, expect, it } from 'vitest';
import { loadTestSettings } from '../config.js';
import { NodePostgresDatabase } from '../db/adapters/node-postgres.js';
import { createMetrics } from '../metrics/registry.js';
import { type TestApp, useTestApp } from '../test/test-app.js';

const serverUrl = loadTestSettings().databaseUrl;

/** `db_reads_total` by `target/reason`. */
async function reads(metrics: ReturnType<typeof createMetrics>): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const { labels, value } of (await metrics.dbReads.get()).values) {
    counts[`${labels.target}/${labels.reason}`] = value;
  }
  return counts;
}

/** Creates a page and reads it back, and the list, through the app. */
async function writeThenRead(t: TestApp): Promise<number[]> {
  const created = await t.app.inject({
    method: 'POST',
    url: '/v0/pages',
    headers: t.auth(),
    payload: { name: 'p', title: 't', pageContext: 'c', brandId: 'b', pageType: 'inbound' },
  });
  const pageId = created.json<{ pageId: string }>().pageId;
  const one = await t.app.inject({ url: `/v0/pages/${pageId}`, headers: t.auth() });
  const list = await t.app.inject({ url: '/v0/pages', headers: t.auth() });
  return [created.statusCode, one.statusCode, list.statusCode];
}

/** An app whose `DATABASE_REPLICA_URL` is `replicaUrl`. */
function appWithReplica(replicaUrl: string) {
  const metrics = createMetrics();
  const replica = new NodePostgresDatabase({ url: replicaUrl, poolSize: 2, connectTimeoutMs: 1000 });
  const t = useTestApp({ metrics, replica: () => replica });
  afterAll(async () => {
    await replica.close();
  });
  return { t, metrics };
}

describe.skipIf(!serverUrl)('reads with a replica configured', () => {
  describe('while the replica cannot be reached', () => {
    const { t, metrics } = appWithReplica('postgres://postgres@127.0.0.1:1/test');

    it('answers every read from the primary', async () => {
      expect(await writeThenRead(t)).toEqual([201, 200, 200]);
      expect(await reads(metrics)).toMatchObject({ 'primary/unavailable': 2 });
    });
  });

  describe('when the replica URL leads to a server that is not a standby', () => {
    const { t, metrics } = appWithReplica(serverUrl ?? '');

    it('reads nothing from it', async () => {
      expect(await writeThenRead(t)).toEqual([201, 200, 200]);
      const counts = await reads(metrics);
      expect(counts['replica/replayed']).toBeUndefined();
      expect(counts['primary/unavailable']).toBe(2);
    });
  });
});
