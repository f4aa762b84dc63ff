import {
  WebhookDeliverySchema,
  WebhookSubscriptionSchema,
  WebhookSubscriptionWithSecretSchema,
} from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { openSecretBox } from '../../secrets/keyring.js';
import { expectApiError, itEnforcesAuth } from '../../test/http-cases.js';
import { query } from '../../test/sql.js';
import { useTestApp } from '../../test/test-app.js';

const t = useTestApp();

const URL_OK = 'https://hooks.example.com/customer-api';
const post = (url: string, payload: unknown = {}) =>
  t.app.inject({ method: 'POST', url, headers: t.auth(), payload: payload as object });
const get = (url: string) => t.app.inject({ url, headers: t.auth() });
const del = (url: string) => t.app.inject({ method: 'DELETE', url, headers: t.auth() });
const create = async (body: Record<string, unknown> = {}) => {
  const res = await post('/v0/webhook_subscriptions', { url: URL_OK, ...body });
  expect(res.statusCode, res.body).toBe(201);
  return WebhookSubscriptionWithSecretSchema.parse(res.json());
};

describe('POST /v0/webhook_subscriptions', () => {
  it('creates an active subscription and shows its secret this once only', async () => {
    const created = await create({ description: 'CRM sync' });
    expect(created).toMatchObject({
      url: URL_OK,
      eventTypes: ['page.version.*'],
      description: 'CRM sync',
      status: 'active',
      disabledReason: null,
    });
    expect(created.webhookSubscriptionId).toMatch(/^whsub_[0-9a-z]{26}$/);
    expect(created.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const read = await get(`/v0/webhook_subscriptions/${created.webhookSubscriptionId}`);
    expect(read.statusCode).toBe(200);
    const { signingSecret, ...withoutSecret } = created;
    expect(read.json()).toEqual(withoutSecret);
    expect(read.body).not.toContain(signingSecret);
    const list = await get('/v0/webhook_subscriptions');
    expect(list.json()).toMatchObject({ totalCount: 1, items: [withoutSecret] });
    expect(list.body).not.toContain(signingSecret);
    expect((await create()).signingSecret).not.toBe(signingSecret);
  });

  it('keeps the event types asked for, without duplicates', async () => {
    const created = await create({ eventTypes: ['page.version.published', 'page.version.published'] });
    expect(created.eventTypes).toEqual(['page.version.published']);
  });

  it('refuses receiver URLs that are plain http, carry credentials, or point inside', async () => {
    for (const url of [
      'http://hooks.example.com/x',
      'http://127.0.0.1:8080/x',
      'https://user:pass@hooks.example.com/x',
      'https://localhost/x',
      'https://127.0.0.1/x',
      'https://10.0.0.8/x',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/x',
      'https://[::ffff:10.0.0.1]/x',
    ]) {
      const body = expectApiError(await post('/v0/webhook_subscriptions', { url }), 'VALIDATION_ERROR');
      expect(body.details, url).toEqual([
        { field: 'body', issues: [expect.objectContaining({ path: ['url'] })] },
      ]);
    }
    expect((await get('/v0/webhook_subscriptions')).json().totalCount).toBe(0);
  });

  it('rejects invalid bodies', async () => {
    for (const bad of [
      {},
      { url: 'ftp://x.example' },
      { url: URL_OK, eventTypes: ['page.*'] },
      { url: URL_OK, x: 1 },
    ]) {
      expectApiError(await post('/v0/webhook_subscriptions', bad), 'VALIDATION_ERROR');
    }
  });

  itEnforcesAuth(
    t,
    async () => ({
      method: 'POST',
      url: '/v0/webhook_subscriptions',
      headers: t.auth(),
      payload: { url: URL_OK },
    }),
    { write: true, hasIds: false },
  );
});

describe('GET /v0/webhook_subscriptions', () => {
  it('walks every subscription newest first', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await create()).webhookSubscriptionId);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(
        `/v0/webhook_subscriptions?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      const body = res.json();
      expect(body.totalCount).toBe(5);
      seen.push(...body.items.map((s: { webhookSubscriptionId: string }) => s.webhookSubscriptionId));
      cursor = body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });

  itEnforcesAuth(t, async () => ({ method: 'GET', url: '/v0/webhook_subscriptions', headers: t.auth() }), {
    write: false,
    hasIds: false,
  });
});

describe('GET and DELETE /v0/webhook_subscriptions/{id}', () => {
  it('deletes a subscription: disabled in the answer, then gone', async () => {
    const { webhookSubscriptionId: id } = await create();
    const res = await del(`/v0/webhook_subscriptions/${id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(WebhookSubscriptionSchema.parse(res.json())).toMatchObject({
      status: 'disabled',
      disabledReason: 'Deleted.',
    });
    expectApiError(await get(`/v0/webhook_subscriptions/${id}`), 'NOT_FOUND');
    expectApiError(await del(`/v0/webhook_subscriptions/${id}`), 'NOT_FOUND');
    expectApiError(await get(`/v0/webhook_subscriptions/${id}/deliveries`), 'NOT_FOUND');
    expect((await get('/v0/webhook_subscriptions')).json()).toMatchObject({ totalCount: 0, items: [] });
  });

  it('answers 404 for an unknown subscription', async () => {
    expectApiError(await get('/v0/webhook_subscriptions/whsub_unknown'), 'NOT_FOUND');
  });

  itEnforcesAuth(
    t,
    async () => ({
      method: 'GET',
      url: `/v0/webhook_subscriptions/${(await create()).webhookSubscriptionId}`,
      headers: t.auth(),
    }),
    { write: false, hasIds: true },
  );
  itEnforcesAuth(
    t,
    async () => ({
      method: 'DELETE',
      url: `/v0/webhook_subscriptions/${(await create()).webhookSubscriptionId}`,
      headers: t.auth(),
    }),
    { write: true, hasIds: true },
  );
});

describe('POST /v0/webhook_subscriptions/{id}/rotate_secret', () => {
  it('returns a new secret once and keeps the old one signing for 24 hours', async () => {
    const created = await create();
    const before = Date.now();
    const res = await post(`/v0/webhook_subscriptions/${created.webhookSubscriptionId}/rotate_secret`);
    expect(res.statusCode, res.body).toBe(200);
    const rotated = WebhookSubscriptionWithSecretSchema.parse(res.json());
    expect(rotated.signingSecret).not.toBe(created.signingSecret);
    expect(rotated.webhookSubscriptionId).toBe(created.webhookSubscriptionId);
    const [row] = await query<{
      secret: string | null;
      previous_secret: string | null;
      secret_sealed: string;
      previous_secret_sealed: string;
      previous_secret_expires_at: Date;
    }>(
      t.database.db,
      `SELECT secret, previous_secret, secret_sealed, previous_secret_sealed, previous_secret_expires_at
       FROM webhook_subscriptions WHERE id = $1`,
      [created.webhookSubscriptionId],
    );
    // Both secrets are stored sealed only; the app's key opens them.
    expect(row?.secret).toBeNull();
    expect(row?.previous_secret).toBeNull();
    expect(row?.secret_sealed).not.toContain(rotated.signingSecret.slice(6));
    const box = openSecretBox(t.config);
    expect(box.open(row?.secret_sealed ?? '')).toBe(rotated.signingSecret);
    expect(box.open(row?.previous_secret_sealed ?? '')).toBe(created.signingSecret);
    const overlap = (row?.previous_secret_expires_at.getTime() ?? 0) - before;
    expect(overlap).toBeGreaterThanOrEqual(24 * 3600 * 1000);
    expect(overlap).toBeLessThan(24 * 3600 * 1000 + 60_000);
  });

  itEnforcesAuth(
    t,
    async () => ({
      method: 'POST',
      url: `/v0/webhook_subscriptions/${(await create()).webhookSubscriptionId}/rotate_secret`,
      headers: t.auth(),
      payload: {},
    }),
    { write: true, hasIds: true },
  );
});

describe('deliveries, redelivery and recovery', () => {
  it('lists no deliveries for a new subscription', async () => {
    const { webhookSubscriptionId: id } = await create();
    const res = await get(`/v0/webhook_subscriptions/${id}/deliveries`);
    expect(res.json()).toEqual({
      items: [],
      hasMore: false,
      nextCursor: null,
      totalCount: 0,
      retainedSince: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('answers 404 when redelivering an unknown delivery or one of another subscription', async () => {
    const { webhookSubscriptionId: id } = await create();
    expectApiError(
      await post(`/v0/webhook_subscriptions/${id}/deliveries/whdel_unknown/redeliver`),
      'NOT_FOUND',
    );
  });

  it('refuses recovery on a disabled subscription with 409 and checks the body', async () => {
    const { webhookSubscriptionId: id } = await create();
    const since = new Date(Date.now() - 3600_000).toISOString();
    const ok = await post(`/v0/webhook_subscriptions/${id}/recover`, { since });
    expect(ok.statusCode, ok.body).toBe(202);
    expect(ok.json()).toEqual({ queued: 0 });
    expectApiError(
      await post(`/v0/webhook_subscriptions/${id}/recover`, { since: 'yesterday' }),
      'VALIDATION_ERROR',
    );
    await query(
      t.database.db,
      "UPDATE webhook_subscriptions SET status = 'disabled', disabled_reason = 'The receiver answered 410 Gone.' WHERE id = $1",
      [id],
    );
    expectApiError(await post(`/v0/webhook_subscriptions/${id}/recover`, { since }), 'CONFLICT');
  });

  it('has the delivery shape in the contract', () => {
    expect(WebhookDeliverySchema.shape.status.options).toEqual(['pending', 'succeeded', 'failed']);
  });

  itEnforcesAuth(
    t,
    async () => ({
      method: 'GET',
      url: `/v0/webhook_subscriptions/${(await create()).webhookSubscriptionId}/deliveries`,
      headers: t.auth(),
    }),
    { write: false, hasIds: true },
  );
  itEnforcesAuth(
    t,
    async () => ({
      method: 'POST',
      url: `/v0/webhook_subscriptions/${(await create()).webhookSubscriptionId}/recover`,
      headers: t.auth(),
      payload: { since: new Date().toISOString() },
    }),
    { write: true, hasIds: true },
  );
});
