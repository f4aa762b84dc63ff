import { z } from 'zod';
import { AudienceVersionStatusSchema } from '../audiences/audiences.schemas.js';
import { TimestampSchema } from '../common/primitives.js';

/** Webhook event kinds: audience version lifecycle events in the `page.version.*` namespace. */
export const WebhookEventTypeSchema = z.enum([
  'page.version.created',
  'page.version.published',
  'page.version.cancelled',
  'page.version.archived',
]);
/** A webhook event kind. */
export type WebhookEventType = z.infer<typeof WebhookEventTypeSchema>;

/** Every webhook event kind, in a stable order. */
export const WEBHOOK_EVENT_TYPES = WebhookEventTypeSchema.options;

/** What a subscription can ask for: one event kind or the `page.version.*` wildcard. */
export const WebhookEventTypeFilterSchema = z.enum([...WEBHOOK_EVENT_TYPES, 'page.version.*']);
/** An event kind or the `page.version.*` wildcard. */
export type WebhookEventTypeFilter = z.infer<typeof WebhookEventTypeFilterSchema>;

const versionEventFields = {
  pageId: z.string(),
  audienceId: z.string(),
  versionId: z.string().describe('Audience version id.'),
  status: AudienceVersionStatusSchema.describe('Status of the version after the event.'),
  createdAt: TimestampSchema.describe('When the version was created.'),
};

const versionEvent = <T extends WebhookEventType>(type: T) =>
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

/** The payload of any webhook event, discriminated by `type`. */
export const WebhookEventPayloadSchema = z
  .discriminatedUnion('type', [
    PageVersionCreatedPayloadSchema,
    PageVersionPublishedPayloadSchema,
    PageVersionCancelledPayloadSchema,
    PageVersionArchivedPayloadSchema,
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
