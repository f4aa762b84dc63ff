import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { COMMON_ERROR_STATUSES, errorResponses } from '../common/errors.js';
import { PATH_IDS } from '../common/ids.js';
import { operation } from '../common/operations.js';
import { emptyIsAbsent, PaginationQuerySchema, paginated } from '../common/pagination.js';
import { EmptyBodySchema } from '../common/primitives.js';
import { AssetSchema, AssetTypeSchema, CreateAssetBodySchema } from './assets.schemas.js';

const c = initContract();

/** Query of `listTrashedAssets`. */
export const ListTrashedAssetsQuerySchema = PaginationQuerySchema.extend({
  assetType: AssetTypeSchema.optional().describe('Only assets of this type.'),
  query: emptyIsAbsent(
    z
      .string()
      .max(200)
      .describe(
        'Case-insensitive text matched against asset names; empty: no filter. Over a trash of more than 10,000 assets it needs three letters or digits in a row (else 400).',
      ),
  ),
}).strict();

/** Asset operations. */
export const assetsContract = c.router({
  listTrashedAssets: {
    method: 'GET',
    path: '/assets/trash',
    query: ListTrashedAssetsQuerySchema,
    responses: { 200: paginated(AssetSchema), ...errorResponses(...COMMON_ERROR_STATUSES) },
    summary: 'List trashed assets',
    description:
      'Lists assets in the trash, most recently trashed first, optionally filtered by assetType and a name query.',
    metadata: operation('Assets', 'read', { paginated: true }),
  },
  createAsset: {
    method: 'POST',
    path: '/assets',
    body: CreateAssetBodySchema,
    responses: { 201: AssetSchema, ...errorResponses(...COMMON_ERROR_STATUSES, 404) },
    summary: 'Create an asset',
    description:
      'Registers a stored media or component item (name and data {type, fileId}). 404 when parentAssetId names no asset of this tenant (a trashed parent is accepted; a deleted one is not).',
    metadata: operation('Assets', 'create', { resource: 'asset' }),
  },
  trashAsset: {
    method: 'POST',
    path: '/assets/:asset_id/trash',
    pathParams: z.object({ asset_id: PATH_IDS.asset_id }),
    body: EmptyBodySchema,
    responses: { 200: AssetSchema, ...errorResponses(...COMMON_ERROR_STATUSES, 404, 409, 412) },
    summary: 'Move an asset to the trash',
    description: 'Moves an asset to the trash (trashedAt set). 409 when it is already trashed.',
    metadata: operation('Assets', 'transition', { resource: 'asset' }),
  },
});
