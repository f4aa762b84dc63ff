import { WebhookSubscriptionSchema, WebhookSubscriptionWithSecretSchema } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { expectApiError, itEnforcesAuth } from '../../test/http-cases.js';
import { query } from '../../test/sql.js';
import { useTestApp } from '../../test/test-app.js';

const t = useTestApp();

const URL_OK = 'https://hooks.example.com/customer-api';
const create = async () => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v0/webhook_subscriptions',
    headers: t.auth(),
    payload: { url: URL_OK, description: 'CRM' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return WebhookSubscriptionWithSecretSchema.parse(res.json());
};
const patch = (id: string, payload: unknown, apiKey?: string) =>
  t.app.inject({
    method: 'PATCH',
    url: `/v0/webhook_subscriptions/${id}`,
    headers: t.auth(apiKey),
    payload: payload as object,
  });

describe('PATCH /v0/webhook_subscriptions/{webhook_subscription_id}', () => {
  itEnforcesAuth(
    t,
    async (t) => ({
      method: 'PATCH',
      url: `/v0/webhook_subscriptions/${(await create()).webhookSubscriptionId}`,
      headers: t.auth(),
      payload: { description: 'changed' },
    }),
    { write: true, hasIds: true },
  );

  it('changes only the fields given, and never shows the secret', async () => {
    const sub = await create();
    const res = await patch(sub.webhookSubscriptionId, {
      url: 'https://hooks.example.com/v2',
      eventTypes: ['page.version.published', 'page.version.published'],
      description: null,
    });
    expect(res.statusCode, res.body).toBe(200);
    const updated = WebhookSubscriptionSchema.strict().parse(res.json());
    expect(updated).toMatchObject({
      url: 'https://hooks.example.com/v2',
      eventTypes: ['page.version.published'],
      description: null,
      status: 'active',
      createdAt: sub.createdAt,
    });
    const read = await t.app.inject({
      url: `/v0/webhook_subscriptions/${sub.webhookSubscriptionId}`,
      headers: t.auth(),
    });
    expect(read.json()).toEqual(updated);
  });

  it('pauses with disabled, and active re-enables an auto-disabled subscription, clearing its reason and failure streak', async () => {
    const sub = await create();
    const paused = (await patch(sub.webhookSubscriptionId, { status: 'disabled' })).json();
    expect(paused).toMatchObject({ status: 'disabled', disabledReason: 'Disabled by the tenant.' });
    // As the dispatcher leaves it after five days of failures.
    await query(
      t.database.db,
      "UPDATE webhook_subscriptions SET disabled_reason = 'Every delivery failed for 5 days.', failing_since = $1 WHERE id = $2",
      [new Date(0).toISOString(), sub.webhookSubscriptionId],
    );
    const resumed = await patch(sub.webhookSubscriptionId, { status: 'active' });
    expect(resumed.json()).toMatchObject({ status: 'active', disabledReason: null });
    const [row] = await query(
      t.database.db,
      'SELECT failing_since FROM webhook_subscriptions WHERE id = $1',
      [sub.webhookSubscriptionId],
    );
    expect(row?.failing_since).toBeNull();
    // Setting the status it already has changes nothing.
    expect((await patch(sub.webhookSubscriptionId, { status: 'active' })).json().status).toBe('active');
  });

  it('answers 400 for an empty body, unknown fields and a refused URL; 404 for a foreign or deleted one', async () => {
    const sub = await create();
    for (const body of [
      {},
      { secret: 'x' },
      { url: 'http://10.0.0.1/hook' },
      { eventTypes: [] },
      { status: 'paused' },
    ]) {
      expectApiError(await patch(sub.webhookSubscriptionId, body), 'VALIDATION_ERROR');
    }
    const other = await t.seed.tenant();
    expectApiError(await patch(sub.webhookSubscriptionId, { description: 'x' }, other.apiKey), 'NOT_FOUND');
    await t.app.inject({
      method: 'DELETE',
      url: `/v0/webhook_subscriptions/${sub.webhookSubscriptionId}`,
      headers: t.auth(),
    });
    expectApiError(await patch(sub.webhookSubscriptionId, { status: 'active' }), 'NOT_FOUND');
  });
});
