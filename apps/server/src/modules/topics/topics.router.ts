import { requireAuth } from '../../http/auth.js';
import { defineModule } from '../types.js';
import * as service from './topics.service.js';

/** Knowledge topics. */
export const topicsModule = defineModule('topics', (deps) => ({
  listTopics: async ({ query, request }) => ({
    status: 200,
    body: await service.listTopics(deps, requireAuth(request).tenantId, query),
  }),
  createTopic: async ({ body, request }) => ({
    status: 201,
    body: await service.createTopic(deps, requireAuth(request).tenantId, body),
  }),
  getTopic: async ({ params, request }) => ({
    status: 200,
    body: await service.getTopic(deps, requireAuth(request).tenantId, params.topic_id),
  }),
  updateTopic: async ({ params, body, request }) => ({
    status: 200,
    body: await service.updateTopic(deps, requireAuth(request).tenantId, params.topic_id, body),
  }),
}));
