import { requireAuth } from '../../http/auth.js';
import { defineModule } from '../types.js';
import * as audiences from './audiences.service.js';
import * as versions from './versions.service.js';

/** Audiences and their versions. */
export const audiencesModule = defineModule('audiences', (deps) => ({
  listAudiences: async ({ params, query, request }) => ({
    status: 200,
    body: await audiences.listAudiences(deps, requireAuth(request).tenantId, params.page_id, query),
  }),
  createAudience: async ({ params, body, request }) => ({
    status: 201,
    body: await audiences.createAudience(deps, requireAuth(request).tenantId, params.page_id, body),
  }),
  getAudience: async ({ params, request }) => ({
    status: 200,
    body: await audiences.getAudience(
      deps,
      requireAuth(request).tenantId,
      params.page_id,
      params.audience_id,
    ),
  }),
  archiveAudience: async ({ params, request }) => ({
    status: 200,
    body: await audiences.archiveAudience(
      deps,
      requireAuth(request).tenantId,
      params.page_id,
      params.audience_id,
    ),
  }),
  restoreAudience: async ({ params, request }) => ({
    status: 200,
    body: await audiences.restoreAudience(
      deps,
      requireAuth(request).tenantId,
      params.page_id,
      params.audience_id,
    ),
  }),
  createAudienceVersion: async ({ params, body, request }) => ({
    status: 201,
    body: await versions.createAudienceVersion(
      deps,
      requireAuth(request).tenantId,
      params.page_id,
      params.audience_id,
      body,
    ),
  }),
  getAudienceVersion: async ({ params, request }) => ({
    status: 200,
    body: await versions.getAudienceVersion(
      deps,
      requireAuth(request).tenantId,
      params.page_id,
      params.audience_id,
      params.version_id,
    ),
  }),
  publishAudienceVersion: async ({ params, request }) => ({
    status: 200,
    body: await versions.publishAudienceVersion(
      deps,
      requireAuth(request).tenantId,
      params.page_id,
      params.audience_id,
      params.version_id,
    ),
  }),
  cancelAudienceVersion: async ({ params, request }) => ({
    status: 200,
    body: await versions.cancelAudienceVersion(
      deps,
      requireAuth(request).tenantId,
      params.page_id,
      params.audience_id,
      params.version_id,
    ),
  }),
}));
