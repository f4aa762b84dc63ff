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
    body: await versions.createVersion(
      deps,
      { tenantId: requireAuth(request).tenantId, pageId: params.page_id, audienceId: params.audience_id },
      body,
    ),
  }),
  getAudienceVersion: async ({ params, request }) => ({
    status: 200,
    body: await versions.getVersion(deps, versionRef(requireAuth(request).tenantId, params)),
  }),
  publishAudienceVersion: async ({ params, request }) => ({
    status: 200,
    body: await versions.publishVersion(deps, versionRef(requireAuth(request).tenantId, params)),
  }),
  cancelAudienceVersion: async ({ params, request }) => ({
    status: 200,
    body: await versions.cancelVersion(deps, versionRef(requireAuth(request).tenantId, params)),
  }),
}));

function versionRef(tenantId: string, params: { page_id: string; audience_id: string; version_id: string }) {
  return { tenantId, pageId: params.page_id, audienceId: params.audience_id, versionId: params.version_id };
}
