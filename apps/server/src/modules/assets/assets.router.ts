import { requireAuth } from '../../http/auth.js';
import { defineModule } from '../types.js';
import * as service from './assets.service.js';

/** Assets: create, move to the trash, list the trash. */
export const assetsModule = defineModule('assets', (deps) => ({
  createAsset: async ({ body, request }) => ({
    status: 201,
    body: await service.createAsset(deps, requireAuth(request).tenantId, body),
  }),
  trashAsset: async ({ params, request }) => ({
    status: 200,
    body: await service.trashAsset(deps, requireAuth(request).tenantId, params.asset_id),
  }),
  listTrashedAssets: async ({ query, request }) => ({
    status: 200,
    body: await service.listTrashedAssets(deps, requireAuth(request).tenantId, query),
  }),
}));
