import type { WebhookDelivery, WebhookSubscription } from '@customer-api/contract';
import { index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { tenantId, ts } from './columns.js';

/**
 * The webhook outbox: one row per event, written in the same transaction as the change that
 * caused it, so an event exists exactly when its change committed. It is never updated: what is
 * left to fan out is in {@link webhookEventQueue}.
 */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: text('id').notNull(),
    tenantId: tenantId(),
    type: text('type').notNull(),
    payload: jsonb('payload').notNull(),
    createdAt: ts('created_at').notNull(),
    /** The subscription an operational event (`webhook.*`) is about: never delivered to it. */
    subjectSubscriptionId: text('subject_subscription_id'),
  },
  (t) => [
    primaryKey({ name: 'webhook_events_pkey', columns: [t.tenantId, t.id] }),
    index('webhook_events_tenant_created_idx').on(t.tenantId, t.createdAt, t.id),
  ],
);

/**
 * The events not fanned out yet, one narrow row each: written with the event, deleted in the
 * transaction that creates the event's deliveries, so fan-out happens exactly once. (A delete of
 * this row costs no index entry and no copy of the event's payload, as marking the event would.)
 * Event ids are UUIDv7s: their order is creation order.
 */
export const webhookEventQueue = pgTable(
  'webhook_event_queue',
  {
    eventId: text('event_id').notNull(),
    tenantId: tenantId(),
    /** The dispatcher sending the event's first attempts before writing them (hand-over, 0250). */
    leaseToken: text('lease_token'),
    /** Until when that dispatcher holds the event: no fan-out takes it before. */
    leasedUntil: ts('leased_until'),
  },
  (t) => [
    primaryKey({ name: 'webhook_event_queue_pkey', columns: [t.tenantId, t.eventId] }),
    // The fan-out takes the oldest queued events of every tenant (event ids are UUIDv7s).
    index('webhook_event_queue_order_idx').on(t.eventId),
  ],
);

/**
 * Webhook subscriptions. The signing secret is stored sealed (`secret_sealed`, AES-256-GCM under
 * `SECRETS_ENCRYPTION_KEYS`, opened only through `secrets/secret-box.ts`); `previous_secret_sealed`
 * signs too until `previous_secret_expires_at`. `secret` and `previous_secret` hold plaintext only
 * in rows written before sealing, until the next start or `customer-api secrets rotate` seals them
 * (decision 0214).
 */
export const webhookSubscriptions = pgTable(
  'webhook_subscriptions',
  {
    id: text('id').notNull(),
    tenantId: tenantId(),
    url: text('url').notNull(),
    eventTypes: text('event_types').array().$type<WebhookSubscription['eventTypes']>().notNull(),
    description: text('description'),
    status: text('status').$type<WebhookSubscription['status']>().notNull(),
    disabledReason: text('disabled_reason'),
    secret: text('secret'),
    previousSecret: text('previous_secret'),
    secretSealed: text('secret_sealed'),
    previousSecretSealed: text('previous_secret_sealed'),
    previousSecretExpiresAt: ts('previous_secret_expires_at'),
    /** Start of the current run of failures; null after any success. */
    failingSince: ts('failing_since'),
    /** Most deliveries a second to this subscription; null: no limit. */
    maxDeliveriesPerSecond: integer('max_deliveries_per_second'),
    /**
     * The throttle's theoretical arrival time (GCRA): when the next delivery may start without a
     * burst; null until the first throttled delivery (`delivery/throttle.ts`). In microseconds,
     * as a 10,000 a second throttle needs.
     */
    throttleAt: timestamp('throttle_at', { withTimezone: true, mode: 'date' }),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    primaryKey({ name: 'webhook_subscriptions_pkey', columns: [t.tenantId, t.id] }),
    index('webhook_subscriptions_list_idx').on(t.tenantId, t.createdAt.desc(), t.id.desc()),
  ],
);

/**
 * The delivery log: one row per attempt of one event to one subscription, as the API lists it. A
 * pending attempt also has a row in {@link webhookDeliveryQueue}, which the engine claims and
 * leases; recording its outcome deletes that row and writes this one in place, changing no
 * indexed column (a heap-only update, decision 0240). `next_attempt_at` says when a pending
 * attempt is due (kept equal to its queue row's) or when a failed one's retry is.
 * `retry_step` indexes the retry schedule; null marks a manual redelivery (one attempt).
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').notNull(),
    tenantId: tenantId(),
    subscriptionId: text('subscription_id').notNull(),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').$type<WebhookDelivery['eventType']>().notNull(),
    attempt: integer('attempt').notNull(),
    retryStep: integer('retry_step'),
    status: text('status').$type<WebhookDelivery['status']>().notNull(),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    durationMs: integer('duration_ms'),
    error: text('error'),
    createdAt: ts('created_at').notNull(),
    attemptedAt: ts('attempted_at'),
    nextAttemptAt: ts('next_attempt_at'),
  },
  (t) => [
    primaryKey({ name: 'webhook_deliveries_pkey', columns: [t.tenantId, t.id] }),
    index('webhook_deliveries_list_idx').on(t.subscriptionId, t.createdAt.desc(), t.id.desc()),
    index('webhook_deliveries_event_idx').on(t.subscriptionId, t.eventId),
  ],
);

/**
 * The pending attempts, one narrow row each, apart from the delivery log ({@link webhookDeliveries})
 * that the API lists: written with the attempt's log row, deleted in the statement that records its
 * outcome. A row is due at `next_attempt_at`; a dispatcher leases it (`lease_token`,
 * `leased_until`) before sending, so no two dispatchers send it at once and a crashed dispatcher's
 * lease simply runs out. An attempt of a throttled subscription waits for its turn with
 * `next_attempt_at = turn_at` (decision 0240).
 */
export const webhookDeliveryQueue = pgTable(
  'webhook_delivery_queue',
  {
    /** The attempt: `webhook_deliveries.id`. */
    id: text('id').notNull(),
    tenantId: tenantId(),
    subscriptionId: text('subscription_id').notNull(),
    nextAttemptAt: ts('next_attempt_at').notNull(),
    leaseToken: text('lease_token'),
    leasedUntil: ts('leased_until'),
    /**
     * The turn a throttled subscription gave this attempt (`delivery/throttle.ts`): it is due then
     * and is sent without taking another; null when it holds none.
     */
    turnAt: ts('turn_at'),
  },
  (t) => [
    primaryKey({ name: 'webhook_delivery_queue_pkey', columns: [t.tenantId, t.id] }),
    // The fair claim (delivery/lease.sql.ts) skip-scans these: the first for each tenant's earliest
    // attempt, the second for a tenant's subscriptions and their oldest attempts.
    index('webhook_delivery_queue_tenant_idx').on(t.tenantId, t.nextAttemptAt),
    index('webhook_delivery_queue_subscription_idx').on(t.tenantId, t.subscriptionId, t.nextAttemptAt),
  ],
);
