import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { notModified } from '../common/conditional.js';
import { COMMON_ERROR_STATUSES, errorResponses } from '../common/errors.js';
import { PATH_IDS } from '../common/ids.js';
import { operation } from '../common/operations.js';
import { paginated } from '../common/pagination.js';
import {
  AccountActivityItemSchema,
  AccountListItemSchema,
  AccountLogSchema,
  AccountSchema,
  CreateAccountLogBodySchema,
  ListAccountActivityQuerySchema,
  ListAccountsQuerySchema,
} from './accounts.schemas.js';

const c = initContract();

const AccountPathSchema = z.object({ account_id: PATH_IDS.account_id });

/** Account, account activity and account log operations. */
export const accountsContract = c.router({
  listAccounts: {
    method: 'GET',
    path: '/accounts',
    query: ListAccountsQuerySchema,
    responses: { 200: paginated(AccountListItemSchema), ...errorResponses(...COMMON_ERROR_STATUSES) },
    summary: 'List accounts',
    description:
      'Lists accounts, newest first, with linkedPersonsCount. includeEmptyOnly=true keeps accounts without linked persons. Gives accountId values.',
    metadata: operation('Accounts', 'read', { paginated: true, defaultTool: true }),
  },
  getAccount: {
    method: 'GET',
    path: '/accounts/:account_id',
    pathParams: AccountPathSchema,
    responses: { 200: AccountSchema, ...notModified, ...errorResponses(...COMMON_ERROR_STATUSES, 404) },
    summary: 'Get an account',
    description: 'Reads one account (accountId from listAccounts) with its linked persons.',
    metadata: operation('Accounts', 'read', { defaultTool: true, resource: 'account' }),
  },
  listAccountActivity: {
    method: 'GET',
    path: '/accounts/:account_id/activity',
    pathParams: AccountPathSchema,
    query: ListAccountActivityQuerySchema,
    responses: {
      200: paginated(AccountActivityItemSchema),
      ...errorResponses(...COMMON_ERROR_STATUSES, 404),
    },
    summary: "List an account's activity",
    description:
      "Lists an account's logs, newest first. includePersonActivity=true adds its persons' logs; includeDeleted=true adds deleted items.",
    metadata: operation('Account Activity', 'read', { paginated: true, defaultTool: true }),
  },
  createAccountLog: {
    method: 'POST',
    path: '/account_logs',
    body: CreateAccountLogBodySchema,
    responses: {
      200: AccountLogSchema,
      201: AccountLogSchema,
      ...errorResponses(...COMMON_ERROR_STATUSES, 404, 409),
    },
    summary: 'Record an account log',
    description:
      'Records an event on an account given by accountId or by domain (the account is created when new). Pass an idempotencyKey to make retries safe: 200 returns the earlier entry, 409 means the key was used with a different body.',
    metadata: operation('Account Logs', 'create', {
      idempotent: true,
      defaultTool: true,
    }),
  },
  deleteAccountLog: {
    method: 'DELETE',
    path: '/account_logs/:account_log_id',
    pathParams: z.object({ account_log_id: PATH_IDS.account_log_id }),
    body: c.noBody(),
    responses: { 200: AccountActivityItemSchema, ...errorResponses(...COMMON_ERROR_STATUSES, 404) },
    summary: 'Delete an account log',
    description:
      'Soft-deletes an account log (accountLogId from createAccountLog or listAccountActivity): deletedAt is set, listAccountActivity shows it only with includeDeleted=true, counts stay exact. Deleting it again returns the same item.',
    metadata: operation('Account Logs', 'delete'),
  },
});
