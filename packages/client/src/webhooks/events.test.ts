import type { WebhookDeliveryBodyOf } from '@customer-api/contract';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { dispatchWebhookEvent, isWebhookEvent, parseWebhookDelivery, parseWebhookEvent } from './events.js';

const delivery = (type: string) => ({
  timestamp: '2026-01-31T12:00:00.000Z',
  eventId: `evt_${type}`,
  payload: {
    type,
    pageId: 'page_1',
    audienceId: 'audience_1',
    versionId: 'version_1',
    status: 'published',
    createdAt: '2026-01-31T11:00:00.000Z',
  },
});

describe('typed webhook parsing', () => {
  it('parses text, bytes and objects into the contract’s delivery body', () => {
    const body = delivery('page.version.published');
    expect(parseWebhookDelivery(JSON.stringify(body))).toEqual(body);
    expect(parseWebhookDelivery(Buffer.from(JSON.stringify(body)))).toEqual(body);
    expect(parseWebhookDelivery(body)).toEqual(body);
    expect(() => parseWebhookDelivery({ ...body, eventId: '' })).toThrow(
      expect.objectContaining({ reason: 'invalid_body' }),
    );
  });

  it('parseWebhookEvent returns the delivery typed for the requested kind, and rejects other kinds', () => {
    const published = parseWebhookEvent('page.version.published', delivery('page.version.published'));
    expectTypeOf(published).toEqualTypeOf<WebhookDeliveryBodyOf<'page.version.published'>>();
    expect(published.payload.versionId).toBe('version_1');
    expect(() => parseWebhookEvent('page.version.created', delivery('page.version.archived'))).toThrow(
      expect.objectContaining({ reason: 'unexpected_event_type' }),
    );
  });

  it('isWebhookEvent narrows and dispatchWebhookEvent calls the matching handler only', () => {
    const parsed = parseWebhookDelivery(delivery('page.version.cancelled'));
    expect(isWebhookEvent(parsed, 'page.version.cancelled')).toBe(true);
    expect(isWebhookEvent(parsed, 'page.version.created')).toBe(false);
    const calls: string[] = [];
    const result = dispatchWebhookEvent(parsed, {
      'page.version.created': () => {
        calls.push('created');
        return 'created';
      },
      'page.version.cancelled': (d) => {
        expectTypeOf(d.payload.type).toEqualTypeOf<'page.version.cancelled'>();
        calls.push(d.payload.type);
        return 'handled';
      },
    });
    expect(calls).toEqual(['page.version.cancelled']);
    expect(result).toBe('handled');
    expect(dispatchWebhookEvent(parsed, {})).toBeUndefined();
  });

  it('types the operational events, which carry no version', () => {
    const exhausted = parseWebhookEvent('webhook.delivery.exhausted', {
      timestamp: '2026-01-31T12:00:00.000Z',
      eventId: 'evt_ops',
      payload: {
        type: 'webhook.delivery.exhausted',
        webhookSubscriptionId: 'whsub_1',
        eventId: 'evt_1',
        eventType: 'page.version.created',
        deliveryId: 'whdel_1',
        attempts: 8,
        responseStatus: null,
        error: 'Connection refused',
      },
    });
    expectTypeOf(exhausted.payload.attempts).toEqualTypeOf<number>();
    expect(exhausted.payload.webhookSubscriptionId).toBe('whsub_1');
    const disabled = parseWebhookDelivery({
      timestamp: '2026-01-31T12:00:00.000Z',
      eventId: 'evt_ops2',
      payload: {
        type: 'webhook.subscription.disabled',
        webhookSubscriptionId: 'whsub_1',
        url: 'https://hooks.example.com/in',
        disabledReason: 'The receiver answered 410 Gone.',
      },
    });
    expect(
      dispatchWebhookEvent(disabled, { 'webhook.subscription.disabled': (d) => d.payload.disabledReason }),
    ).toBe('The receiver answered 410 Gone.');
    // A payload missing what its type promises is refused.
    expect(() =>
      parseWebhookDelivery({ ...disabled, payload: { type: 'webhook.subscription.disabled' } }),
    ).toThrow(expect.objectContaining({ reason: 'invalid_body' }));
  });
});
