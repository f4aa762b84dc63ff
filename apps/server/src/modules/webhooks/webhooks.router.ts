import { requireAuth } from '../../http/auth.js';
import { defineModule } from '../types.js';
import * as deliveries from './deliveries.service.js';
import * as service from './webhooks.service.js';

/** Webhook subscriptions, their delivery log, redelivery and recovery. */
export const webhooksModule = defineModule('webhooks', (deps) => ({
  createWebhookSubscription: async ({ body, request }) => ({
    status: 201,
    body: await service.createWebhookSubscription(deps, requireAuth(request).tenantId, body),
  }),
  listWebhookSubscriptions: async ({ query, request }) => ({
    status: 200,
    body: await service.listWebhookSubscriptions(deps, requireAuth(request).tenantId, query),
  }),
  getWebhookSubscription: async ({ params, request }) => ({
    status: 200,
    body: await service.getWebhookSubscription(
      deps,
      requireAuth(request).tenantId,
      params.webhook_subscription_id,
    ),
  }),
  deleteWebhookSubscription: async ({ params, request }) => ({
    status: 200,
    body: await service.deleteWebhookSubscription(
      deps,
      requireAuth(request).tenantId,
      params.webhook_subscription_id,
    ),
  }),
  updateWebhookSubscription: async ({ params, body, request }) => ({
    status: 200,
    body: await service.updateWebhookSubscription(
      deps,
      requireAuth(request).tenantId,
      params.webhook_subscription_id,
      body,
    ),
  }),
  rotateWebhookSubscriptionSecret: async ({ params, request }) => ({
    status: 200,
    body: await service.rotateWebhookSubscriptionSecret(
      deps,
      requireAuth(request).tenantId,
      params.webhook_subscription_id,
    ),
  }),
  listWebhookDeliveries: async ({ params, query, request }) => ({
    status: 200,
    body: await deliveries.listWebhookDeliveries(
      deps,
      requireAuth(request).tenantId,
      params.webhook_subscription_id,
      query,
    ),
  }),
  redeliverWebhookDelivery: async ({ params, request }) => ({
    status: 202,
    body: await deliveries.redeliverWebhookDelivery(
      deps,
      requireAuth(request).tenantId,
      params.webhook_subscription_id,
      params.delivery_id,
    ),
  }),
  recoverWebhookDeliveries: async ({ params, body, request }) => ({
    status: 202,
    body: await deliveries.recoverWebhookDeliveries(
      deps,
      requireAuth(request).tenantId,
      params.webhook_subscription_id,
      body,
    ),
  }),
}));
