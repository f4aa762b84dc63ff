import { requireAuth } from '../../http/auth.js';
import { defineModule, pathParam } from '../types.js';
import * as deliveries from './deliveries.service.js';
import * as service from './webhooks.service.js';

/** Webhook subscriptions, their delivery log, redelivery and recovery. */
export const webhooksModule = defineModule(
  'webhooks',
  (deps) => ({
    createWebhookSubscription: async ({ body, request, db }) => ({
      status: 201,
      body: await service.createWebhookSubscription({ ...deps, db }, requireAuth(request).tenantId, body),
    }),
    listWebhookSubscriptions: async ({ query, request, db }) => ({
      status: 200,
      body: await service.listWebhookSubscriptions({ ...deps, db }, requireAuth(request).tenantId, query),
    }),
    getWebhookSubscription: async ({ params, request, db }) => ({
      status: 200,
      body: await service.getWebhookSubscription(
        { ...deps, db },
        requireAuth(request).tenantId,
        params.webhook_subscription_id,
      ),
    }),
    deleteWebhookSubscription: async ({ params, request, db }) => ({
      status: 200,
      body: await service.deleteWebhookSubscription(
        { ...deps, db },
        requireAuth(request).tenantId,
        params.webhook_subscription_id,
      ),
    }),
    updateWebhookSubscription: async ({ params, body, request, db }) => ({
      status: 200,
      body: await service.updateWebhookSubscription(
        { ...deps, db },
        requireAuth(request).tenantId,
        params.webhook_subscription_id,
        body,
      ),
    }),
    rotateWebhookSubscriptionSecret: async ({ params, request, db }) => ({
      status: 200,
      body: await service.rotateWebhookSubscriptionSecret(
        { ...deps, db },
        requireAuth(request).tenantId,
        params.webhook_subscription_id,
      ),
    }),
    listWebhookDeliveries: async ({ params, query, request, db }) => ({
      status: 200,
      body: await deliveries.listWebhookDeliveries(
        { ...deps, db },
        requireAuth(request).tenantId,
        params.webhook_subscription_id,
        query,
      ),
    }),
    redeliverWebhookDelivery: async ({ params, request, db }) => ({
      status: 202,
      body: await deliveries.redeliverWebhookDelivery(
        { ...deps, db },
        requireAuth(request).tenantId,
        params.webhook_subscription_id,
        params.delivery_id,
      ),
    }),
    recoverWebhookDeliveries: async ({ params, body, request, db }) => ({
      status: 202,
      body: await deliveries.recoverWebhookDeliveries(
        { ...deps, db },
        requireAuth(request).tenantId,
        params.webhook_subscription_id,
        body,
      ),
    }),
  }),
  {
    webhookSubscription: {
      lock: ({ db }, tenantId, params) =>
        service.lockWebhookSubscription(db, tenantId, pathParam(params, 'webhook_subscription_id')),
      read: (deps, tenantId, params) =>
        service.getWebhookSubscription(deps, tenantId, pathParam(params, 'webhook_subscription_id')),
    },
  },
);
