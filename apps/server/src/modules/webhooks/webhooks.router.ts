import { requireAuth } from '../../http/auth.js';
import { defineModule } from '../types.js';
import * as deliveries from './deliveries.service.js';
import * as service from './webhooks.service.js';

/** Webhook subscriptions, their delivery log, redelivery and recovery. */
export const webhooksModule = defineModule('webhooks', (deps) => ({
  createWebhookSubscription: async ({ body, request }) => ({
    status: 201,
    body: await service.createSubscription(deps, requireAuth(request).tenantId, body),
  }),
  listWebhookSubscriptions: async ({ query, request }) => ({
    status: 200,
    body: await service.listSubscriptions(deps, requireAuth(request).tenantId, query),
  }),
  getWebhookSubscription: async ({ params, request }) => ({
    status: 200,
    body: await service.getSubscription(deps, requireAuth(request).tenantId, params.webhook_subscription_id),
  }),
  deleteWebhookSubscription: async ({ params, request }) => ({
    status: 200,
    body: await service.deleteSubscription(
      deps,
      requireAuth(request).tenantId,
      params.webhook_subscription_id,
    ),
  }),
  updateWebhookSubscription: async ({ params, body, request }) => ({
    status: 200,
    body: await service.updateSubscription(
      deps,
      requireAuth(request).tenantId,
      params.webhook_subscription_id,
      body,
    ),
  }),
  rotateWebhookSubscriptionSecret: async ({ params, request }) => ({
    status: 200,
    body: await service.rotateSecret(deps, requireAuth(request).tenantId, params.webhook_subscription_id),
  }),
  listWebhookDeliveries: async ({ params, query, request }) => ({
    status: 200,
    body: await deliveries.listDeliveries(
      deps,
      requireAuth(request).tenantId,
      params.webhook_subscription_id,
      query,
    ),
  }),
  redeliverWebhookDelivery: async ({ params, request }) => ({
    status: 202,
    body: await deliveries.redeliver(
      deps,
      requireAuth(request).tenantId,
      params.webhook_subscription_id,
      params.delivery_id,
    ),
  }),
  recoverWebhookDeliveries: async ({ params, body, request }) => ({
    status: 202,
    body: await deliveries.recover(
      deps,
      requireAuth(request).tenantId,
      params.webhook_subscription_id,
      new Date(body.since),
    ),
  }),
}));
