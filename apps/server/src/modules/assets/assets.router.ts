import { requireAuth } from '../../http/auth.js';
import { defineModule, pathParam } from '../types.js';
import * as service from './assets.service.js';

/** Assets: create, move to the trash, list the trash. */
export const assetsModule = defineModule(
  'assets',
  (deps) => ({
    createAsset: async ({ body, request, db }) => ({
      status: 201,
      body: await service.createAsset({ ...deps, db }, requireAuth(request).tenantId, body),
    }),
    trashAsset: async ({ params, request, db }) => ({
      status: 200,
      body: await service.trashAsset({ ...deps, db }, requireAuth(request).tenantId, params.asset_id),
    }),
    listTrashedAssets: async ({ query, request, db }) => ({
      status: 200,
      body: await service.listTrashedAssets({ ...deps, db }, requireAuth(request).tenantId, query),
    }),
  }),
  {
    asset: {
      lock: ({ db }, tenantId, params) => service.lockAsset(db, tenantId, pathParam(params, 'asset_id')),
      read: (deps, tenantId, params) => service.readAsset(deps, tenantId, pathParam(params, 'asset_id')),
    },
  },
);
