import { requireAuth } from '../../http/auth.js';
import { defineModule } from '../types.js';
import * as service from './sessions.service.js';

/** Audience sessions and their interactions (resource group Analytics). */
export const sessionsModule = defineModule('sessions', (deps) => ({
  createAudienceSession: async ({ body, request, db }) => ({
    status: 201,
    body: await service.createAudienceSession({ ...deps, db }, requireAuth(request).tenantId, body),
  }),
  createAudienceSessionInteraction: async ({ params, body, request, db }) => ({
    status: 201,
    body: await service.createAudienceSessionInteraction(
      { ...deps, db },
      requireAuth(request).tenantId,
      params.audience_session_id,
      body,
    ),
  }),
  getAudienceSessionInteractions: async ({ params, request, db }) => ({
    status: 200,
    body: await service.getAudienceSessionInteractions(
      { ...deps, db },
      requireAuth(request).tenantId,
      params.audience_session_id,
    ),
  }),
}));
