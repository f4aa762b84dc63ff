import { requireAuth } from '../../http/auth.js';
import { defineModule, pathParam } from '../types.js';
import * as service from './pages.service.js';

/** Pages: list, create, read, archive, delete, restore. */
export const pagesModule = defineModule(
  'pages',
  (deps) => ({
    listPages: async ({ query, request, db }) => ({
      status: 200,
      body: await service.listPages({ ...deps, db }, requireAuth(request).tenantId, query),
    }),
    createPage: async ({ body, request, db }) => ({
      status: 201,
      body: await service.createPage({ ...deps, db }, requireAuth(request).tenantId, body),
    }),
    getPage: async ({ params, request, db }) => ({
      status: 200,
      body: await service.getPage({ ...deps, db }, requireAuth(request).tenantId, params.page_id),
    }),
    archivePage: async ({ params, request, db }) => ({
      status: 200,
      body: await service.archivePage({ ...deps, db }, requireAuth(request).tenantId, params.page_id),
    }),
    deletePage: async ({ params, request, db }) => ({
      status: 200,
      body: await service.deletePage({ ...deps, db }, requireAuth(request).tenantId, params.page_id),
    }),
    restorePage: async ({ params, request, db }) => ({
      status: 200,
      body: await service.restorePage({ ...deps, db }, requireAuth(request).tenantId, params.page_id),
    }),
  }),
  {
    page: {
      lock: ({ db }, tenantId, params) => service.lockPage(db, tenantId, pathParam(params, 'page_id')),
      read: (deps, tenantId, params) => service.getPage(deps, tenantId, pathParam(params, 'page_id')),
    },
  },
);
