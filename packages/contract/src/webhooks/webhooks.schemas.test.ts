import { describe, expect, it } from 'vitest';
import { WebhookDeliveryBodySchema, WebhookEventPayloadSchema } from './events.schemas.js';
import { CreateWebhookSubscriptionBodySchema } from './webhooks.schemas.js';

const payload = {
  type: 'page.version.created',
  pageId: 'page_1',
  audienceId: 'audience_1',
  versionId: 'version_1',
  status: 'draft',
  createdAt: '2026-01-01T00:00:00.000Z',
};

describe('webhook events', () => {
  it('delivery body has timestamp, eventId and a typed payload', () => {
    const body = { timestamp: '2026-01-01T00:00:01.000Z', eventId: 'evt_1', payload };
    expect(WebhookDeliveryBodySchema.safeParse(body).success).toBe(true);
    expect(WebhookDeliveryBodySchema.safeParse({ ...body, eventId: '' }).success).toBe(false);
    expect(WebhookDeliveryBodySchema.safeParse({ ...body, timestamp: 1767225601000 }).success).toBe(false);
  });

  it('payloads are discriminated by a page.version.* type', () => {
    for (const type of ['page.version.published', 'page.version.cancelled', 'page.version.archived']) {
      expect(WebhookEventPayloadSchema.safeParse({ ...payload, type }).success, type).toBe(true);
    }
    expect(WebhookEventPayloadSchema.safeParse({ ...payload, type: 'page.created' }).success).toBe(false);
    const { versionId: _v, ...noVersion } = payload;
    expect(WebhookEventPayloadSchema.safeParse(noVersion).success).toBe(false);
  });
});

describe('webhook subscriptions', () => {
  it('need an http(s) url and default to every event', () => {
    expect(CreateWebhookSubscriptionBodySchema.parse({ url: 'https://example.com/hook' }).eventTypes).toEqual(
      ['page.version.*'],
    );
    for (const url of ['ftp://example.com', 'not a url', 'javascript:alert(1)']) {
      expect(CreateWebhookSubscriptionBodySchema.safeParse({ url }).success, url).toBe(false);
    }
  });

  it('accept known event types and the wildcard only', () => {
    const body = { url: 'https://example.com', eventTypes: ['page.version.created', 'page.version.*'] };
    expect(CreateWebhookSubscriptionBodySchema.safeParse(body).success).toBe(true);
    expect(CreateWebhookSubscriptionBodySchema.safeParse({ ...body, eventTypes: ['page.*'] }).success).toBe(
      false,
    );
    expect(CreateWebhookSubscriptionBodySchema.safeParse({ ...body, eventTypes: [] }).success).toBe(false);
  });
});
