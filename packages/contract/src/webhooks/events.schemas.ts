import { z } from 'zod';
import { AudienceVersionStatusSchema } from '../audiences/audiences.schemas.js';
import { TimestampSchema } from '../common/primitives.js';

/** Audience version lifecycle events, the `page.version.*` namespace. */
export const VERSION_EVENT_TYPES = [
  'page.version.created',
  'page.version.published',
  'page.version.cancelled',
  'page.version.archived',
] as const;

/**
 * Operational events about the webhooks themselves, the `webhook.*` namespace: sent only to
 * subscriptions that name them (or `webhook.*`), never to the subscription they are about.
 */
export const OPERATIONAL_EVENT_TYPES = [
  'webhook.delivery.exhausted',
  'webhook.subscription.disabled',
] as const;

/** Webhook event kinds: version events (`page.version.*`) and operational events (`webhook.*`). */
export const WebhookEventTypeSchema = z.enum([...VERSION_EVENT_TYPES, ...OPERATIONAL_EVENT_TYPES]);
/** A webhook event kind. */
export type WebhookEventType = z.infer<typeof WebhookEventTypeSchema>;

/** Every webhook event kind, in a stable order. */
export const WEBHOOK_EVENT_TYPES = WebhookEventTypeSchema.options;

/** What a subscription can ask for: one event kind, or a namespace's wildcard. */
export const WebhookEventTypeFilterSchema = z.enum([...WEBHOOK_EVENT_TYPES, 'page.version.*', 'webhook.*']);
/** An event kind or a namespace's wildcard (`page.version.*`, `webhook.*`). */
export type WebhookEventTypeFilter = z.infer<typeof WebhookEventTypeFilterSchema>;

const versionEventFields = {
  pageId: z.string(),
  audienceId: z.string(),
  versionId: z.string().describe('Audience version id.'),
  status: AudienceVersionStatusSchema.describe('Status of the version after the event.'),
  createdAt: TimestampSchema.describe('When the version was created.'),
};

const versionEvent = <T extends (typeof VERSION_EVENT_TYPES)[number]>(type: T) =>
  z.object({ type: z.literal(type), ...versionEventFields }).meta({
    id: `${type
      .split('.')
      .map((part) => part[0]?.toUpperCase() + part.slice(1))
      .join('')}Payload`,
  });

/** Payload of `page.version.created`. */
export const PageVersionCreatedPayloadSchema = versionEvent('page.version.created');
/** Payload of `page.version.published`. */
export const PageVersionPublishedPayloadSchema = versionEvent('page.version.published');
/** Payload of `page.version.cancelled`. */
export const PageVersionCancelledPayloadSchema = versionEvent('page.version.cancelled');
/** Payload of `page.version.archived`. */
export const PageVersionArchivedPayloadSchema = versionEvent('page.version.archived');

/** Payload of `webhook.delivery.exhausted`: an event's last retry to a subscription failed. */
export const WebhookDeliveryExhaustedPayloadSchema = z
  .object({
    type: z.literal('webhook.delivery.exhausted'),
    webhookSubscriptionId: z.string().describe('The subscription the event was not delivered to.'),
    eventId: z.string().describe('The event whose every attempt failed.'),
    eventType: z.enum(VERSION_EVENT_TYPES),
    deliveryId: z.string().describe('The last attempt.'),
    attempts: z.number().int().min(1).describe('Attempts made, the last included.'),
    responseStatus: z.number().int().nullable().describe("The last attempt's HTTP status; null: no answer."),
    error: z.string().describe('Why the last attempt failed.'),
  })
  .meta({ id: 'WebhookDeliveryExhaustedPayload' });

/** Payload of `webhook.subscription.disabled`: the server disabled a subscription that kept failing. */
export const WebhookSubscriptionDisabledPayloadSchema = z
  .object({
    type: z.literal('webhook.subscription.disabled'),
    webhookSubscriptionId: z.string().describe('The subscription disabled.'),
    url: z.string().describe('Its receiver URL.'),
    disabledReason: z.string().describe('Why it was disabled: a 410 Gone answer, or 5 days of failures.'),
  })
  .meta({ id: 'WebhookSubscriptionDisabledPayload' });

/** The payload of any webhook event, discriminated by `type`. */
export const WebhookEventPayloadSchema = z
  .discriminatedUnion('type', [
    PageVersionCreatedPayloadSchema,
    PageVersionPublishedPayloadSchema,
    PageVersionCancelledPayloadSchema,
    PageVersionArchivedPayloadSchema,
    WebhookDeliveryExhaustedPayloadSchema,
    WebhookSubscriptionDisabledPayloadSchema,
  ])
  .meta({ id: 'WebhookEventPayload' });
/** The payload of any webhook event. */
export type WebhookEventPayload = z.infer<typeof WebhookEventPayloadSchema>;

/**
 * The JSON body of every webhook delivery. Deliveries are at-least-once: deduplicate on `eventId`.
 */
export const WebhookDeliveryBodySchema = z
  .object({
    timestamp: TimestampSchema.describe('When the event happened.'),
    eventId: z.string().min(1).describe('Unique per event; deduplicate on it.'),
    payload: WebhookEventPayloadSchema,
  })
  .meta({ id: 'WebhookDeliveryBody', description: 'The JSON body of a webhook delivery.' });
/** The JSON body of a webhook delivery. */
export type WebhookDeliveryBody = z.infer<typeof WebhookDeliveryBodySchema>;

/** A webhook delivery body narrowed to one event kind. */
export type WebhookDeliveryBodyOf<T extends WebhookEventType> = Omit<WebhookDeliveryBody, 'payload'> & {
  payload: Extract<WebhookEventPayload, { type: T }>;
};

/** Names of the headers every delivery carries (lower case, as Node exposes them). */
export const WEBHOOK_HEADERS = {
  /** `sha256=` + hex HMAC-SHA256 of the raw body, keyed by the whole signing secret (UTF-8). */
  signature: 'x-webhook-signature-256',
  /** Unix time in milliseconds used when signing. */
  timestamp: 'x-webhook-timestamp',
  /** The event id (equal to the body's eventId). */
  eventId: 'x-webhook-event-id',
  /** Standard Webhooks: message id (the event id). */
  standardId: 'webhook-id',
  /** Standard Webhooks: Unix time in seconds. */
  standardTimestamp: 'webhook-timestamp',
  /** Standard Webhooks: space-separated `v1,<base64 HMAC of id.timestamp.body>` signatures. */
  standardSignature: 'webhook-signature',
} as const;
