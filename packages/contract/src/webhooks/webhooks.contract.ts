import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { notModified } from '../common/conditional.js';
import { COMMON_ERROR_STATUSES, errorResponses } from '../common/errors.js';
import { PATH_IDS } from '../common/ids.js';
import { operation } from '../common/operations.js';
import { PaginationQuerySchema, paginated } from '../common/pagination.js';
import { EmptyBodySchema } from '../common/primitives.js';
import {
  CreateWebhookSubscriptionBodySchema,
  RecoverWebhookDeliveriesBodySchema,
  RecoverWebhookDeliveriesResultSchema,
  UpdateWebhookSubscriptionBodySchema,
  WebhookDeliveryPageSchema,
  WebhookDeliverySchema,
  WebhookSubscriptionSchema,
  WebhookSubscriptionWithSecretSchema,
} from './webhooks.schemas.js';

const c = initContract();

const SubscriptionPathSchema = z.object({ webhook_subscription_id: PATH_IDS.webhook_subscription_id });
const withNotFound = errorResponses(...COMMON_ERROR_STATUSES, 404);

/** Webhook subscription and delivery operations. */
export const webhooksContract = c.router({
  createWebhookSubscription: {
    method: 'POST',
    path: '/webhook_subscriptions',
    body: CreateWebhookSubscriptionBodySchema,
    responses: {
      201: WebhookSubscriptionWithSecretSchema,
      ...errorResponses(...COMMON_ERROR_STATUSES, 409),
    },
    summary: 'Create a webhook subscription',
    description:
      'Subscribes a URL to events: page.version.* by default; the operational webhook.* events (a delivery exhausted, a subscription disabled) only when named. The response carries the signingSecret once; it is never shown again. A tenant has at most 16 subscriptions (the server setting WEBHOOKS_MAX_SUBSCRIPTIONS); one more is 409.',
    metadata: operation('Webhook Subscriptions', 'create', {
      openWorld: true,
      resource: 'webhookSubscription',
    }),
  },
  listWebhookSubscriptions: {
    method: 'GET',
    path: '/webhook_subscriptions',
    query: PaginationQuerySchema,
    responses: { 200: paginated(WebhookSubscriptionSchema), ...errorResponses(...COMMON_ERROR_STATUSES) },
    summary: 'List webhook subscriptions',
    description: 'Lists webhook subscriptions, newest first (never their secrets).',
    metadata: operation('Webhook Subscriptions', 'read', { paginated: true }),
  },
  getWebhookSubscription: {
    method: 'GET',
    path: '/webhook_subscriptions/:webhook_subscription_id',
    pathParams: SubscriptionPathSchema,
    responses: { 200: WebhookSubscriptionSchema, ...notModified, ...withNotFound },
    summary: 'Get a webhook subscription',
    description: 'Reads one webhook subscription (never its secret).',
    metadata: operation('Webhook Subscriptions', 'read', { resource: 'webhookSubscription' }),
  },
  deleteWebhookSubscription: {
    method: 'DELETE',
    path: '/webhook_subscriptions/:webhook_subscription_id',
    pathParams: SubscriptionPathSchema,
    body: c.noBody(),
    responses: { 200: WebhookSubscriptionSchema, ...withNotFound, ...errorResponses(412) },
    summary: 'Delete a webhook subscription',
    description: 'Deletes a subscription; no further deliveries are made to it.',
    metadata: operation('Webhook Subscriptions', 'delete', { resource: 'webhookSubscription' }),
  },
  updateWebhookSubscription: {
    method: 'PATCH',
    path: '/webhook_subscriptions/:webhook_subscription_id',
    pathParams: SubscriptionPathSchema,
    body: UpdateWebhookSubscriptionBodySchema,
    responses: { 200: WebhookSubscriptionSchema, ...withNotFound, ...errorResponses(412) },
    summary: 'Update a webhook subscription',
    description:
      'Changes url, eventTypes, description, status or maxDeliveriesPerSecond. status active re-enables a disabled subscription (disabledReason cleared, pending deliveries resume); disabled pauses it. Changes apply to deliveries not yet attempted.',
    metadata: operation('Webhook Subscriptions', 'update', { resource: 'webhookSubscription' }),
  },
  rotateWebhookSubscriptionSecret: {
    method: 'POST',
    path: '/webhook_subscriptions/:webhook_subscription_id/rotate_secret',
    pathParams: SubscriptionPathSchema,
    body: EmptyBodySchema,
    responses: { 200: WebhookSubscriptionWithSecretSchema, ...withNotFound, ...errorResponses(412) },
    summary: 'Rotate a signing secret',
    description:
      'Issues a new signing secret, returned once. For 24 hours deliveries are signed with both the old and the new secret.',
    metadata: operation('Webhook Subscriptions', 'update', {
      idempotent: false,
      resource: 'webhookSubscription',
    }),
  },
  listWebhookDeliveries: {
    method: 'GET',
    path: '/webhook_subscriptions/:webhook_subscription_id/deliveries',
    pathParams: SubscriptionPathSchema,
    query: PaginationQuerySchema,
    responses: { 200: WebhookDeliveryPageSchema, ...withNotFound },
    summary: 'List delivery attempts',
    description:
      'Lists delivery attempts of a subscription, newest first, with status, response status and error (a new attempt may show only once being sent). Older attempts are purged (retention); retainedSince says where the window starts.',
    metadata: operation('Webhook Subscriptions', 'read', { paginated: true }),
  },
  redeliverWebhookDelivery: {
    method: 'POST',
    path: '/webhook_subscriptions/:webhook_subscription_id/deliveries/:delivery_id/redeliver',
    pathParams: SubscriptionPathSchema.extend({ delivery_id: PATH_IDS.delivery_id }),
    body: EmptyBodySchema,
    responses: { 202: WebhookDeliverySchema, ...errorResponses(...COMMON_ERROR_STATUSES, 404, 409) },
    summary: 'Redeliver an event',
    description:
      'Queues a new delivery attempt of the event of a past delivery. 409 when the subscription is disabled; 404 when the delivery is unknown or was purged (older than the retention window).',
    metadata: operation('Webhook Subscriptions', 'create', { idempotent: false, openWorld: true }),
  },
  recoverWebhookDeliveries: {
    method: 'POST',
    path: '/webhook_subscriptions/:webhook_subscription_id/recover',
    pathParams: SubscriptionPathSchema,
    body: RecoverWebhookDeliveriesBodySchema,
    responses: {
      202: RecoverWebhookDeliveriesResultSchema,
      ...errorResponses(...COMMON_ERROR_STATUSES, 404, 409),
    },
    summary: 'Recover failed deliveries',
    description: 'Queues another attempt of every failed delivery since the given time.',
    metadata: operation('Webhook Subscriptions', 'create', { idempotent: false, openWorld: true }),
  },
});
