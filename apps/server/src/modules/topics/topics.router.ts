import { requireAuth } from '../../http/auth.js';
import { defineModule, pathParam } from '../types.js';
import * as service from './topics.service.js';

/** Knowledge topics. */
export const topicsModule = defineModule(
  'topics',
  (deps) => ({
    listTopics: async ({ query, request, db }) => ({
      status: 200,
      body: await service.listTopics({ ...deps, db }, requireAuth(request).tenantId, query),
    }),
    createTopic: async ({ body, request, db }) => ({
      status: 201,
      body: await service.createTopic({ ...deps, db }, requireAuth(request).tenantId, body),
    }),
    getTopic: async ({ params, request, db }) => ({
      status: 200,
      body: await service.getTopic({ ...deps, db }, requireAuth(request).tenantId, params.topic_id),
    }),
    updateTopic: async ({ params, body, request, db }) => ({
      status: 200,
      body: await service.updateTopic({ ...deps, db }, requireAuth(request).tenantId, params.topic_id, body),
    }),
  }),
  {
    topic: {
      lock: ({ db }, tenantId, params) => service.lockTopic(db, tenantId, pathParam(params, 'topic_id')),
      read: (deps, tenantId, params) => service.getTopic(deps, tenantId, pathParam(params, 'topic_id')),
    },
  },
);
