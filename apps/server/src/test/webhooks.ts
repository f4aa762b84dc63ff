import {
  type WebhookDelivery,
  type WebhookSubscriptionWithSecret,
  WebhookSubscriptionWithSecretSchema,
} from '@customer-api/contract';
import { verify } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { createDispatcher, type DispatcherOptions, type WebhookDispatcher } from '../delivery/dispatcher.js';
import { newId } from '../lib/ids.js';
import { openSecretBox } from '../secrets/keyring.js';
import type { TestTenant } from './seed.js';
import { query } from './sql.js';
import { type TestApp, useTestApp } from './test-app.js';
import { type Received, startReceiver, type TestReceiver } from './webhook-receiver.js';

/** Environment of the webhook test apps: loopback receivers, a short schedule, a short timeout. */
export const WEBHOOK_TEST_ENV = {
  WEBHOOKS_ALLOW_INSECURE: '1',
  WEBHOOKS_RETRY_SCHEDULE: '1,2,4',
  // Short enough for the timeout test, long enough that a busy machine does not time out.
  WEBHOOKS_TIMEOUT_MS: '1000',
};

/** A clock running with real time plus an offset that tests move forward (never real sleeps). */
export function steppingClock() {
  let offset = 0;
  return {
    clock: () => new Date(Date.now() + offset),
    advance: (ms: number) => {
      offset += ms;
    },
  };
}

/** Webhook helpers bound to a test app. */
export function webhookHelpers(t: TestApp, clock: () => Date) {
  const dispatchers: WebhookDispatcher[] = [];
  return {
    /** A dispatcher on the test database and clock; stopped by {@link stopAll}. */
    dispatcher(options: Partial<DispatcherOptions> = {}): WebhookDispatcher {
      const d = createDispatcher({
        db: t.database.db,
        clock,
        ids: newId,
        webhooks: t.config.webhooks,
        secrets: openSecretBox(t.config),
        ...options,
      });
      dispatchers.push(d);
      return d;
    },
    async stopAll() {
      await Promise.all(dispatchers.splice(0).map((d) => d.stop()));
    },
    async subscribe(
      url: string,
      body: Record<string, unknown> = {},
      tenant: TestTenant = t.tenant,
    ): Promise<WebhookSubscriptionWithSecret> {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v0/webhook_subscriptions',
        headers: tenant.auth(),
        payload: { url, ...body },
      });
      expect(res.statusCode, res.body).toBe(201);
      return WebhookSubscriptionWithSecretSchema.parse(res.json());
    },
    /** Creates a page, an audience and a version: one `page.version.created` event. */
    async version(tenant: TestTenant = t.tenant) {
      const page = await t.seed.page(tenant);
      const audience = await t.seed.audience(tenant, page.pageId);
      const version = await t.seed.version(tenant, page.pageId, audience.audienceId);
      return { page, audience, version };
    },
    async deliveries(subscriptionId: string): Promise<WebhookDelivery[]> {
      const res = await t.app.inject({
        url: `/v0/webhook_subscriptions/${subscriptionId}/deliveries?limit=100`,
        headers: t.auth(),
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().items;
    },
    async subscription(subscriptionId: string) {
      return (
        await t.app.inject({ url: `/v0/webhook_subscriptions/${subscriptionId}`, headers: t.auth() })
      ).json();
    },
  };
}

/**
 * Verifies a received delivery with both third-party verifiers, as a receiver whose clock reads
 * `now` would: `@octokit/webhooks-methods` on the `sha256=` header (keyed by `specSecret`) and
 * `standardwebhooks` on the Standard Webhooks headers (keyed by `standardSecret`).
 */
export async function verifyBoth(
  received: Received,
  secrets: { spec: string; standard: string },
  now: Date,
): Promise<void> {
  const header = String(received.headers['x-webhook-signature-256']);
  expect(await verify(secrets.spec, received.body, header), 'sha256= signature').toBe(true);
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    vi.setSystemTime(now);
    new Webhook(secrets.standard).verify(received.body, received.headers as Record<string, string>);
  } finally {
    vi.useRealTimers();
  }
}

/** True when the Standard Webhooks verifier accepts the delivery with `secret`. */
export function standardAccepts(received: Received, secret: string, now: Date): boolean {
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    vi.setSystemTime(now);
    new Webhook(secret).verify(received.body, received.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  } finally {
    vi.useRealTimers();
  }
}

/**
 * The common setup of a webhook test file: a test app on a stepping clock with the webhook
 * environment (plus `env`), its helpers, and a fresh loopback receiver per test (closed after it, once every
 * dispatcher the test started has stopped).
 */
export function useWebhookTest(env: Record<string, string> = {}) {
  const time = steppingClock();
  const t = useTestApp({ clock: time.clock, env: { ...WEBHOOK_TEST_ENV, ...env } });
  const h = webhookHelpers(t, time.clock);
  let current: TestReceiver | undefined;
  beforeEach(async () => {
    current = await startReceiver();
  });
  afterEach(async () => {
    await h.stopAll();
    await current?.close();
  });
  return {
    time,
    t,
    h,
    /** This test's receiver. */
    get receiver(): TestReceiver {
      if (!current) throw new Error('the receiver exists only while a test runs');
      return current;
    },
  };
}

/**
 * Fresh tenant ids for a test file that writes attempts by hand: claims see every tenant's rows, so
 * after each test the attempts of the tenants it used (`tenant()`, or `adopt`ed) leave the queue
 * and are marked failed.
 */
export function useThrowawayTenants(t: TestApp): { tenant(): string; adopt(tenantId: string): void } {
  const used: string[] = [];
  afterEach(async () => {
    const tenantIds = used.splice(0);
    await query(t.database.db, 'DELETE FROM webhook_delivery_queue WHERE tenant_id = ANY ($1::text[])', [
      tenantIds,
    ]);
    await query(
      t.database.db,
      "UPDATE webhook_deliveries SET status = 'failed' WHERE tenant_id = ANY ($1::text[])",
      [tenantIds],
    );
  });
  return {
    tenant() {
      const id = newId('tenant');
      used.push(id);
      return id;
    },
    adopt(tenantId) {
      used.push(tenantId);
    },
  };
}
