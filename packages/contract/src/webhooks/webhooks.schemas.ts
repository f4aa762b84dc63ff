import { z } from 'zod';
import { paginated } from '../common/pagination.js';
import { CountSchema, TIMESTAMP_MAX_LENGTH, TimestampSchema } from '../common/primitives.js';
import { WebhookEventTypeFilterSchema, WebhookEventTypeSchema } from './events.schemas.js';

/** Subscription states: `disabled` after a 410 Gone answer, five days of failures, or deletion. */
export const WebhookSubscriptionStatusSchema = z.enum(['active', 'disabled']);

const THROTTLE_TEXT = 'Max deliveries a second; null: no limit.';

/** The throttle of `createWebhookSubscription` and `updateWebhookSubscription`. */
const MaxDeliveriesPerSecondSchema = z.number().int().min(1).max(10_000);

/** A webhook subscription. The signing secret is never part of it. */
export const WebhookSubscriptionSchema = z
  .object({
    webhookSubscriptionId: z.string(),
    url: z.string(),
    eventTypes: z.array(WebhookEventTypeFilterSchema),
    description: z.string().nullable(),
    status: WebhookSubscriptionStatusSchema,
    disabledReason: z.string().nullable().describe('Why the subscription was disabled, when it is.'),
    maxDeliveriesPerSecond: MaxDeliveriesPerSecondSchema.nullable().describe(THROTTLE_TEXT),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  })
  .meta({ id: 'WebhookSubscription' });
/** A webhook subscription. */
export type WebhookSubscription = z.infer<typeof WebhookSubscriptionSchema>;

/**
 * A subscription as returned once, at creation or secret rotation, with its signing secret
 * (`whsec_` + base64 of 32 random bytes). Store it: it is never shown again.
 */
export const WebhookSubscriptionWithSecretSchema = WebhookSubscriptionSchema.extend({
  signingSecret: z.string().describe('Shown only once. whsec_ followed by base64 of 32 random bytes.'),
}).meta({ id: 'WebhookSubscriptionWithSecret' });
/** A subscription with its signing secret. */
export type WebhookSubscriptionWithSecret = z.infer<typeof WebhookSubscriptionWithSecretSchema>;

const EVENT_TYPES_TEXT =
  'Event types, e.g. page.version.published; page.version.* for all; webhook.* events only if named.';

/**
 * Body of `createWebhookSubscription`. `eventTypes` defaults to every version event
 * (`page.version.*`); the operational `webhook.*` events go only to subscriptions that name them.
 */
export const CreateWebhookSubscriptionBodySchema = z
  .object({
    url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .describe('Receiver URL; https (http only to loopback on servers in insecure development mode).'),
    eventTypes: z
      .array(WebhookEventTypeFilterSchema)
      .min(1)
      .max(10)
      .default(['page.version.*'])
      .describe(EVENT_TYPES_TEXT),
    description: z.string().min(1).max(500).optional().describe('What the subscription is for.'),
    maxDeliveriesPerSecond: MaxDeliveriesPerSecondSchema.optional().describe(
      'Max deliveries a second; more wait their turn.',
    ),
  })
  .strict()
  .meta({ id: 'CreateWebhookSubscriptionRequest' });
/** Body of `createWebhookSubscription`. */
export type CreateWebhookSubscriptionBody = z.input<typeof CreateWebhookSubscriptionBodySchema>;

/**
 * Body of `updateWebhookSubscription`: the fields to change (at least one). `status: active` on a
 * disabled subscription clears `disabledReason` and resumes delivery of what is still pending.
 */
export const UpdateWebhookSubscriptionBodySchema = z
  .object({
    url: CreateWebhookSubscriptionBodySchema.shape.url.optional(),
    eventTypes: z.array(WebhookEventTypeFilterSchema).min(1).max(10).optional().describe(EVENT_TYPES_TEXT),
    description: z
      .string()
      .min(1)
      .max(500)
      .nullable()
      .optional()
      .describe('What the subscription is for; null removes it.'),
    status: WebhookSubscriptionStatusSchema.optional().describe(
      'disabled stops deliveries (they stay pending); active resumes them and clears disabledReason.',
    ),
    maxDeliveriesPerSecond: MaxDeliveriesPerSecondSchema.nullable()
      .optional()
      .describe('Max deliveries a second; null removes the limit.'),
  })
  .strict()
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'Give at least one of url, eventTypes, description, status, maxDeliveriesPerSecond.',
  })
  .meta({ id: 'UpdateWebhookSubscriptionRequest' });
/** Body of `updateWebhookSubscription`. */
export type UpdateWebhookSubscriptionBody = z.input<typeof UpdateWebhookSubscriptionBodySchema>;

/** States of a delivery attempt. */
export const WebhookDeliveryStatusSchema = z.enum(['pending', 'succeeded', 'failed']);

/** One delivery attempt of an event to a subscription. */
export const WebhookDeliverySchema = z
  .object({
    deliveryId: z.string(),
    webhookSubscriptionId: z.string(),
    eventId: z.string(),
    eventType: WebhookEventTypeSchema,
    attempt: z.number().int().min(1),
    status: WebhookDeliveryStatusSchema,
    responseStatus: z.number().int().nullable(),
    durationMs: z.number().nullable(),
    error: z.string().nullable(),
    createdAt: TimestampSchema,
    nextAttemptAt: TimestampSchema.nullable(),
  })
  .meta({ id: 'WebhookDelivery' });
/** One delivery attempt. */
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

/**
 * A page of a subscription's delivery attempts, with the start of the window the server keeps:
 * older attempts, with their responses, are purged (`WEBHOOKS_RETENTION_DAYS`, default 30).
 */
export const WebhookDeliveryPageSchema = paginated(WebhookDeliverySchema).extend({
  retainedSince: TimestampSchema.describe(
    'Attempts created before this were purged, with their responses (the server keeps WEBHOOKS_RETENTION_DAYS, default 30).',
  ),
});
/** A page of delivery attempts with the start of the retention window. */
export type WebhookDeliveryPage = z.infer<typeof WebhookDeliveryPageSchema>;

/** Body of `recoverWebhookDeliveries`: re-send every failed delivery since a time. */
export const RecoverWebhookDeliveriesBodySchema = z
  .object({ since: TimestampSchema.max(TIMESTAMP_MAX_LENGTH) })
  .strict()
  .meta({ id: 'RecoverWebhookDeliveriesRequest' });

/** Result of `recoverWebhookDeliveries`. */
export const RecoverWebhookDeliveriesResultSchema = z
  .object({ queued: CountSchema.describe('Deliveries queued for another attempt.') })
  .meta({ id: 'RecoverWebhookDeliveriesResult' });
