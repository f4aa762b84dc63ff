import { requireAuth } from '../../http/auth.js';
import { defineModule, pathParam } from '../types.js';
import * as audiences from './audiences.service.js';
import * as versions from './versions.service.js';

/** Audiences and their versions. */
export const audiencesModule = defineModule(
  'audiences',
  (deps) => ({
    listAudiences: async ({ params, query, request, db }) => ({
      status: 200,
      body: await audiences.listAudiences(
        { ...deps, db },
        requireAuth(request).tenantId,
        params.page_id,
        query,
      ),
    }),
    createAudience: async ({ params, body, request, db }) => ({
      status: 201,
      body: await audiences.createAudience(
        { ...deps, db },
        requireAuth(request).tenantId,
        params.page_id,
        body,
      ),
    }),
    getAudience: async ({ params, request, db }) => ({
      status: 200,
      body: await audiences.getAudience(
        { ...deps, db },
        requireAuth(request).tenantId,
        params.page_id,
        params.audience_id,
      ),
    }),
    archiveAudience: async ({ params, request, db }) => ({
      status: 200,
      body: await audiences.archiveAudience(
        { ...deps, db },
        requireAuth(request).tenantId,
        params.page_id,
        params.audience_id,
      ),
    }),
    restoreAudience: async ({ params, request, db }) => ({
      status: 200,
      body: await audiences.restoreAudience(
        { ...deps, db },
        requireAuth(request).tenantId,
        params.page_id,
        params.audience_id,
      ),
    }),
    createAudienceVersion: async ({ params, body, request, db }) => ({
      status: 201,
      body: await versions.createAudienceVersion(
        { ...deps, db },
        requireAuth(request).tenantId,
        params.page_id,
        params.audience_id,
        body,
      ),
    }),
    getAudienceVersion: async ({ params, request, db }) => ({
      status: 200,
      body: await versions.getAudienceVersion(
        { ...deps, db },
        requireAuth(request).tenantId,
        params.page_id,
        params.audience_id,
        params.version_id,
      ),
    }),
    publishAudienceVersion: async ({ params, request, db }) => ({
      status: 200,
      body: await versions.publishAudienceVersion(
        { ...deps, db },
        requireAuth(request).tenantId,
        params.page_id,
        params.audience_id,
        params.version_id,
      ),
    }),
    cancelAudienceVersion: async ({ params, request, db }) => ({
      status: 200,
      body: await versions.cancelAudienceVersion(
        { ...deps, db },
        requireAuth(request).tenantId,
        params.page_id,
        params.audience_id,
        params.version_id,
      ),
    }),
  }),
  {
    audience: {
      lock: ({ db }, tenantId, params) =>
        audiences.lockAudience(db, tenantId, pathParam(params, 'page_id'), pathParam(params, 'audience_id')),
      read: (deps, tenantId, params) =>
        audiences.getAudience(deps, tenantId, pathParam(params, 'page_id'), pathParam(params, 'audience_id')),
    },
    audienceVersion: {
      lock: ({ db }, tenantId, params) =>
        audiences.lockAudience(db, tenantId, pathParam(params, 'page_id'), pathParam(params, 'audience_id')),
      read: (deps, tenantId, params) =>
        versions.getAudienceVersion(
          deps,
          tenantId,
          pathParam(params, 'page_id'),
          pathParam(params, 'audience_id'),
          pathParam(params, 'version_id'),
        ),
    },
  },
);
