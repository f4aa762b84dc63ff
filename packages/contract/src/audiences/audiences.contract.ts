import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { notModified } from '../common/conditional.js';
import { COMMON_ERROR_STATUSES, errorResponses } from '../common/errors.js';
import { PATH_IDS } from '../common/ids.js';
import { operation } from '../common/operations.js';
import { PaginationQuerySchema, paginated } from '../common/pagination.js';
import { EmptyBodySchema } from '../common/primitives.js';
import {
  AudienceSchema,
  AudienceVersionSchema,
  CreateAudienceBodySchema,
  CreateAudienceVersionBodySchema,
  RestoredAudienceSchema,
} from './audiences.schemas.js';

const c = initContract();

const PagePathSchema = z.object({ page_id: PATH_IDS.page_id });
const AudiencePathSchema = z.object({ page_id: PATH_IDS.page_id, audience_id: PATH_IDS.audience_id });
const VersionPathSchema = z.object({
  page_id: PATH_IDS.page_id,
  audience_id: PATH_IDS.audience_id,
  version_id: PATH_IDS.version_id,
});
const withNotFound = errorResponses(...COMMON_ERROR_STATUSES, 404);
const withConflict = errorResponses(...COMMON_ERROR_STATUSES, 404, 409);

/** Audience and audience version operations. */
export const audiencesContract = c.router({
  listAudiences: {
    method: 'GET',
    path: '/pages/:page_id/audiences',
    pathParams: PagePathSchema,
    query: PaginationQuerySchema,
    responses: { 200: paginated(AudienceSchema), ...withNotFound },
    summary: "List a page's audiences",
    description:
      'Lists the audiences of one page (pageId from listPages), newest first, with their latest and published versions. Gives audienceId values.',
    metadata: operation('Audiences', 'read', { paginated: true, defaultTool: true }),
  },
  createAudience: {
    method: 'POST',
    path: '/pages/:page_id/audiences',
    pathParams: PagePathSchema,
    body: CreateAudienceBodySchema,
    responses: { 201: AudienceSchema, ...withConflict },
    summary: 'Create an audience',
    description:
      'Creates a draft audience under a page. 404 when personId names no person of this tenant (from createPerson); 409 when the page is archived or deleted.',
    metadata: operation('Audiences', 'create', { resource: 'audience' }),
  },
  getAudience: {
    method: 'GET',
    path: '/pages/:page_id/audiences/:audience_id',
    pathParams: AudiencePathSchema,
    responses: { 200: AudienceSchema, ...notModified, ...withNotFound },
    summary: 'Get an audience',
    description: 'Reads one audience of a page by pageId and audienceId.',
    metadata: operation('Audiences', 'read', { defaultTool: true, resource: 'audience' }),
  },
  archiveAudience: {
    method: 'POST',
    path: '/pages/:page_id/audiences/:audience_id/archive',
    pathParams: AudiencePathSchema,
    body: EmptyBodySchema,
    responses: { 200: AudienceSchema, ...withConflict, ...errorResponses(412) },
    summary: 'Archive an audience',
    description: 'Archives an audience; restoreAudience undoes it. 409 when already archived.',
    metadata: operation('Audiences', 'transition', { resource: 'audience' }),
  },
  restoreAudience: {
    method: 'POST',
    path: '/pages/:page_id/audiences/:audience_id/restore',
    pathParams: AudiencePathSchema,
    body: EmptyBodySchema,
    responses: { 200: RestoredAudienceSchema, ...withConflict, ...errorResponses(412) },
    summary: 'Restore an audience',
    description:
      'Restores an archived audience to the status it had before. Send an empty object. 409 when it is not archived or its page is archived or deleted; 404 when the audience is not under that page.',
    metadata: operation('Audiences', 'restore', { undo: true, resource: 'audience' }),
  },
  createAudienceVersion: {
    method: 'POST',
    path: '/pages/:page_id/audiences/:audience_id/versions',
    pathParams: AudiencePathSchema,
    body: CreateAudienceVersionBodySchema,
    responses: { 201: AudienceVersionSchema, ...withConflict },
    summary: 'Create an audience version',
    description:
      'Creates a new draft version of an audience and emits the page.version.created webhook event.',
    metadata: operation('Audience Versions', 'create', { resource: 'audienceVersion' }),
  },
  getAudienceVersion: {
    method: 'GET',
    path: '/pages/:page_id/audiences/:audience_id/versions/:version_id',
    pathParams: VersionPathSchema,
    responses: { 200: AudienceVersionSchema, ...notModified, ...withNotFound },
    summary: 'Get an audience version',
    description:
      "Reads one version of an audience (versionId from the audience's latestVersion or publishedVersion).",
    metadata: operation('Audience Versions', 'read', { resource: 'audienceVersion' }),
  },
  publishAudienceVersion: {
    method: 'POST',
    path: '/pages/:page_id/audiences/:audience_id/versions/:version_id/publish',
    pathParams: VersionPathSchema,
    body: EmptyBodySchema,
    responses: { 200: AudienceVersionSchema, ...withConflict, ...errorResponses(412) },
    summary: 'Publish an audience version',
    description:
      'Publishes a draft version; the previously published one is archived. Emits page.version.published (and page.version.archived). 409 unless the version is a draft.',
    metadata: operation('Audience Versions', 'transition', { resource: 'audienceVersion' }),
  },
  cancelAudienceVersion: {
    method: 'POST',
    path: '/pages/:page_id/audiences/:audience_id/versions/:version_id/cancel',
    pathParams: VersionPathSchema,
    body: EmptyBodySchema,
    responses: { 200: AudienceVersionSchema, ...withConflict, ...errorResponses(412) },
    summary: 'Cancel an audience version',
    description:
      'Cancels a version that is not published yet and emits page.version.cancelled. 409 when it is published, archived or already cancelled.',
    metadata: operation('Audience Versions', 'transition', { resource: 'audienceVersion' }),
  },
});
