import { requireAuth } from '../../http/auth.js';
import { defineModule } from '../types.js';
import { createAccountLog, deleteAccountLog } from './account-logs.service.js';
import * as accounts from './accounts.service.js';
import { listAccountActivity } from './activity.service.js';

/** Accounts, their activity, and account logs. */
export const accountsModule = defineModule('accounts', (deps) => ({
  listAccounts: async ({ query, request, db }) => ({
    status: 200,
    body: await accounts.listAccounts({ ...deps, db }, requireAuth(request).tenantId, query),
  }),
  getAccount: async ({ params, request, db }) => ({
    status: 200,
    body: await accounts.getAccount({ ...deps, db }, requireAuth(request).tenantId, params.account_id),
  }),
  listAccountActivity: async ({ params, query, request, db }) => ({
    status: 200,
    body: await listAccountActivity({ ...deps, db }, requireAuth(request).tenantId, params.account_id, query),
  }),
  createAccountLog: async ({ body, request, db }) => {
    const result = await createAccountLog({ ...deps, db }, requireAuth(request).tenantId, body);
    return result.created ? { status: 201, body: result.log } : { status: 200, body: result.log };
  },
  deleteAccountLog: async ({ params, request, db }) => ({
    status: 200,
    body: await deleteAccountLog({ ...deps, db }, requireAuth(request).tenantId, params.account_log_id),
  }),
}));
