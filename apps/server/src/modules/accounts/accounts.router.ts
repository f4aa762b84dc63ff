import { requireAuth } from '../../http/auth.js';
import { defineModule } from '../types.js';
import { createAccountLog, deleteAccountLog } from './account-logs.service.js';
import * as accounts from './accounts.service.js';
import { listAccountActivity } from './activity.service.js';

/** Accounts, their activity, and account logs. */
export const accountsModule = defineModule('accounts', (deps) => ({
  listAccounts: async ({ query, request }) => ({
    status: 200,
    body: await accounts.listAccounts(deps, requireAuth(request).tenantId, query),
  }),
  getAccount: async ({ params, request }) => ({
    status: 200,
    body: await accounts.getAccount(deps, requireAuth(request).tenantId, params.account_id),
  }),
  listAccountActivity: async ({ params, query, request }) => ({
    status: 200,
    body: await listAccountActivity(deps, requireAuth(request).tenantId, params.account_id, query),
  }),
  createAccountLog: async ({ body, request }) => {
    const result = await createAccountLog(deps, requireAuth(request).tenantId, body);
    return result.created ? { status: 201, body: result.log } : { status: 200, body: result.log };
  },
  deleteAccountLog: async ({ params, request }) => ({
    status: 200,
    body: await deleteAccountLog(deps, requireAuth(request).tenantId, params.account_log_id),
  }),
}));
