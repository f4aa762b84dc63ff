import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { notModified } from '../common/conditional.js';
import { COMMON_ERROR_STATUSES, errorResponses } from '../common/errors.js';
import { PATH_IDS } from '../common/ids.js';
import { operation } from '../common/operations.js';
import { PaginationQuerySchema, paginated } from '../common/pagination.js';
import { EmptyBodySchema } from '../common/primitives.js';
import { CreatePageBodySchema, PageSchema, RestoredPageSchema } from './pages.schemas.js';

const c = initContract();

const PagePathSchema = z.object({ page_id: PATH_IDS.page_id });

/** Page operations. */
export const pagesContract = c.router({
  listPages: {
    method: 'GET',
    path: '/pages',
    query: PaginationQuerySchema,
    responses: { 200: paginated(PageSchema), ...errorResponses(...COMMON_ERROR_STATUSES) },
    summary: 'List pages',
    description:
      'Lists pages, newest first, including archived ones. Start here to find a pageId. Page with limit and the nextCursor of the previous result.',
    metadata: operation('Pages', 'read', { paginated: true, defaultTool: true }),
  },
  createPage: {
    method: 'POST',
    path: '/pages',
    body: CreatePageBodySchema,
    responses: { 201: PageSchema, ...errorResponses(...COMMON_ERROR_STATUSES) },
    summary: 'Create a page',
    description: 'Creates a draft page with a name, title, pageContext, brandId and pageType.',
    metadata: operation('Pages', 'create', { resource: 'page' }),
  },
  getPage: {
    method: 'GET',
    path: '/pages/:page_id',
    pathParams: PagePathSchema,
    responses: { 200: PageSchema, ...notModified, ...errorResponses(...COMMON_ERROR_STATUSES, 404) },
    summary: 'Get a page',
    description: 'Reads one page by pageId (from listPages).',
    metadata: operation('Pages', 'read', { defaultTool: true, resource: 'page' }),
  },
  archivePage: {
    method: 'POST',
    path: '/pages/:page_id/archive',
    pathParams: PagePathSchema,
    body: EmptyBodySchema,
    responses: { 200: PageSchema, ...errorResponses(...COMMON_ERROR_STATUSES, 404, 409, 412) },
    summary: 'Archive a page',
    description:
      'Archives a page (status archived); restorePage undoes it. 409 when already archived or deleted.',
    metadata: operation('Pages', 'transition', { resource: 'page' }),
  },
  deletePage: {
    method: 'DELETE',
    path: '/pages/:page_id',
    pathParams: PagePathSchema,
    body: c.noBody(),
    responses: { 200: PageSchema, ...errorResponses(...COMMON_ERROR_STATUSES, 404, 409, 412) },
    summary: 'Delete a page',
    description: 'Soft-deletes a page (deletedAt set); restorePage undoes it. 409 when already deleted.',
    metadata: operation('Pages', 'delete', { resource: 'page', sendsEtag: true }),
  },
  restorePage: {
    method: 'POST',
    path: '/pages/:page_id/restore',
    pathParams: PagePathSchema,
    body: EmptyBodySchema,
    responses: { 200: RestoredPageSchema, ...errorResponses(...COMMON_ERROR_STATUSES, 404, 409, 412) },
    summary: 'Restore a page',
    description:
      'Restores an archived or deleted page to the status it had before. Send an empty object. 409 when the page is neither archived nor deleted.',
    metadata: operation('Pages', 'restore', { undo: true, resource: 'page' }),
  },
});
