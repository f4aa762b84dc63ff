import { ConflictError, type CustomerApiClient, createClient, NotFoundError } from '@customer-api/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { loadTestSettings } from '../../config.js';
import { createSeeder } from '../../test/seed.js';
import { testConfig } from '../../test/test-app.js';
import { createTestDatabase, type TestDatabase } from '../../test/test-database.js';

/** Accounts, persons, activity, assets, topics and sessions through the published client over real HTTP. */
describe('accounts and friends end to end with @customer-api/client', () => {
  let testDb: TestDatabase;
  let app: FastifyInstance;
  let client: CustomerApiClient;

  beforeAll(async () => {
    testDb = await createTestDatabase(loadTestSettings().databaseUrl);
    app = await buildApp({
      config: testConfig(testDb.url ? { DATABASE_URL: testDb.url } : {}),
      database: testDb.database,
    });
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    const tenant = await createSeeder(app, testDb.database.db).tenant();
    client = createClient({ baseUrl, apiKey: tenant.apiKey, validateResponses: true, maxRetries: 0 });
  });
  afterAll(async () => {
    await client?.close();
    await app?.close();
    await testDb?.dispose();
  });

  it('records logs idempotently and reads them back as activity', async () => {
    const body = {
      source: 'crm-sync',
      domain: 'https://www.E2E.example/',
      payload: { plan: 'pro' },
      idempotencyKey: 'e2e-1',
    };
    const first = await client.withResponse.createAccountLog({ body });
    const replay = await client.withResponse.createAccountLog({ body });
    expect([first.status, replay.status]).toEqual([201, 200]);
    expect(replay.data).toEqual(first.data);
    const conflict = client.createAccountLog({ body: { ...body, payload: { plan: 'free' } } });
    await expect(conflict).rejects.toBeInstanceOf(ConflictError);

    const jane = await client.createPerson({ body: { name: 'Jane', email: 'jane@e2e.example' } });
    expect(jane.accountId).toBe(first.data.accountId);
    await client.createPersonLog({
      body: { personId: jane.personId, source: 'mailer', type: 'opened', payload: {} },
    });
    for (let i = 0; i < 4; i += 1) {
      await client.createAccountLog({
        body: { source: 'crm-sync', accountId: jane.accountId, payload: { i } },
      });
    }
    const seen = [];
    for await (const item of client.iterate('listAccountActivity', {
      params: { account_id: jane.accountId },
      query: { includePersonActivity: 'true', limit: 2 },
    })) {
      seen.push(item);
    }
    expect(seen).toHaveLength(6);
    expect(seen.filter((i) => i.personName === 'Jane')).toHaveLength(1);
    const account = await client.getAccount({ params: { account_id: jane.accountId } });
    expect(account).toMatchObject({ domain: 'e2e.example', linkedPersons: [{ personId: jane.personId }] });
    await expect(
      client.getAccount({ params: { account_id: `account_${'9'.repeat(26)}` } }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('trashes and finds assets, keeps the default topic, and reads session interactions', async () => {
    const asset = await client.createAsset({
      body: { name: 'Spring Hero', data: { type: 'image', fileId: 'f1' } },
    });
    await client.trashAsset({ params: { asset_id: asset.assetId } });
    const trash = await client.listTrashedAssets({ query: { query: 'hero', assetType: 'image' } });
    expect(trash).toMatchObject({
      totalCount: 1,
      items: [{ assetId: asset.assetId, lifecycleState: 'active', trashedAt: expect.any(String) }],
    });

    const topics = await client.listTopics();
    const def = topics.items.find((topic) => topic.isDefault);
    expect(def).toBeDefined();
    await expect(
      client.updateTopic({ params: { topic_id: def?.topicId ?? '' }, body: { title: 'Other' } }),
    ).rejects.toBeInstanceOf(ConflictError);

    const unknown = await client.getAudienceSessionInteractions({
      params: { audience_session_id: 'session_x' },
    });
    expect(unknown).toEqual({ found: false, interactions: [] });
  });
});
