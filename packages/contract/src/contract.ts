import { initContract } from '@ts-rest/core';
import type { z } from 'zod';
import { accountsContract } from './accounts/accounts.contract.js';
import { assetsContract } from './assets/assets.contract.js';
import { assetContentContract } from './assets/content.contract.js';
import { audiencesContract } from './audiences/audiences.contract.js';
import type { OperationMeta } from './common/operations.js';
import type { Paginated } from './common/pagination.js';
import { messagesContract } from './messages/messages.contract.js';
import { pagesContract } from './pages/pages.contract.js';
import { personsContract } from './persons/persons.contract.js';
import { sessionsContract } from './sessions/sessions.contract.js';
import { topicsContract } from './topics/topics.contract.js';
import { webhooksContract } from './webhooks/webhooks.contract.js';

const c = initContract();

/** Every path of the API starts with this prefix (specification: Versioning). */
export const API_PREFIX = '/v0';

/** Version of the API description this contract implements. */
export const API_VERSION = '0.0.1';

/**
 * The whole Customer API as one flat ts-rest router. Each key is an operation name, used
 * unchanged as the client's method name and, in snake_case, as the MCP tool name.
 */
export const contract = c.router(
  {
    ...pagesContract,
    ...audiencesContract,
    ...messagesContract,
    ...assetsContract,
    ...assetContentContract,
    ...personsContract,
    ...accountsContract,
    ...topicsContract,
    ...sessionsContract,
    ...webhooksContract,
  },
  { pathPrefix: API_PREFIX, strictStatusCodes: true },
);

/** The type of {@link contract}. */
export type Contract = typeof contract;

/** The name of one operation of the contract, e.g. `listPages`. */
export type OperationName = keyof Contract;

/** Every operation name, in contract order. */
export const OPERATION_NAMES = Object.keys(contract) as OperationName[];

/** The metadata (resource group, kind, safety hints) of an operation. */
export function operationMeta(name: OperationName): OperationMeta {
  return contract[name].metadata as OperationMeta;
}

/** An operation whose body and answer are JSON: every one but those with metadata `bytes`. */
export type JsonOperationName = Exclude<OperationName, keyof typeof assetContentContract>;

/** Every {@link JsonOperationName}, in contract order. */
export const JSON_OPERATION_NAMES = OPERATION_NAMES.filter(
  (name) => operationMeta(name).bytes === undefined,
) as JsonOperationName[];

/** Operations answering with the pagination envelope. */
export type PaginatedOperationName = {
  [K in OperationName]: Contract[K] extends { responses: { 200: infer R } }
    ? R extends z.ZodType<Paginated<unknown>>
      ? K
      : never
    : never;
}[OperationName];
