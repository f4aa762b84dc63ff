import { requireAuth } from '../../http/auth.js';
import { defineModule } from '../types.js';
import * as service from './pages.service.js';

/** Pages: list, create, read, archive, delete, restore. */
export const pagesModule = defineModule('pages', (deps) => ({
  listPages: async ({ query, request }) => ({
    status: 200,
    body: await service.listPages(deps, requireAuth(request).tenantId, query),
  }),
  createPage: async ({ body, request }) => ({
    status: 201,
    body: await service.createPage(deps, requireAuth(request).tenantId, body),
  }),
  getPage: async ({ params, request }) => ({
    status: 200,
    body: await service.getPage(deps, requireAuth(request).tenantId, params.page_id),
  }),
  archivePage: async ({ params, request }) => ({
    status: 200,
    body: await service.archivePage(deps, requireAuth(request).tenantId, params.page_id),
  }),
  deletePage: async ({ params, request }) => ({
    status: 200,
    body: await service.deletePage(deps, requireAuth(request).tenantId, params.page_id),
  }),
  restorePage: async ({ params, request }) => ({
    status: 200,
    body: await service.restorePage(deps, requireAuth(request).tenantId, params.page_id),
  }),
}));
