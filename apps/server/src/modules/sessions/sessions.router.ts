import { requireAuth } from '../../http/auth.js';
import { defineModule } from '../types.js';
import * as service from './sessions.service.js';

/** Audience sessions and their interactions (resource group Analytics). */
export const sessionsModule = defineModule('sessions', (deps) => ({
  createAudienceSession: async ({ body, request }) => ({
    status: 201,
    body: await service.createAudienceSession(deps, requireAuth(request).tenantId, body),
  }),
  createAudienceSessionInteraction: async ({ params, body, request }) => ({
    status: 201,
    body: await service.createAudienceSessionInteraction(
      deps,
      requireAuth(request).tenantId,
      params.audience_session_id,
      body,
    ),
  }),
  getAudienceSessionInteractions: async ({ params, request }) => ({
    status: 200,
    body: await service.getAudienceSessionInteractions(
      deps,
      requireAuth(request).tenantId,
      params.audience_session_id,
    ),
  }),
}));
