import type { ClientInferRequest, ClientInferResponseBody, ServerInferRequest } from '@ts-rest/core';
import { describe, expectTypeOf, it } from 'vitest';
import type { AccountLog, Page, Paginated } from './index.js';
import { type Contract, type contract, OPERATION_NAMES, type PaginatedOperationName } from './index.js';

// These assertions are checked by `tsc` (the package's typecheck task), which fails on any mismatch.
// If ts-rest's types could not see zod, every inferred type below would silently become `any`.
describe('contract types', () => {
  it('infers request bodies from the schemas (input form: type is optional)', () => {
    type Body = ClientInferRequest<Contract['createAccountLog']>['body'];
    expectTypeOf<Body>().not.toBeAny();
    expectTypeOf<Body['source']>().toEqualTypeOf<string>();
    expectTypeOf<Body['type']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Body['payload']>().toEqualTypeOf<Record<string, unknown>>();
  });

  it('infers parsed requests on the server side (output form: type is always set)', () => {
    type Parsed = ServerInferRequest<Contract['createAccountLog']>['body'];
    expectTypeOf<Parsed['type']>().toEqualTypeOf<string>();
    type Query = ServerInferRequest<Contract['listAccounts']>['query'];
    expectTypeOf<Query['limit']>().toEqualTypeOf<number>();
    expectTypeOf<Query['includeEmptyOnly']>().toEqualTypeOf<boolean | undefined>();
  });

  it('types query parameters strictly for callers', () => {
    type Query = ClientInferRequest<Contract['listPages']>['query'];
    expectTypeOf<Query>().not.toBeAny();
    expectTypeOf<NonNullable<Query>['limit']>().toEqualTypeOf<number | undefined>();
  });

  it('infers success bodies', () => {
    expectTypeOf<ClientInferResponseBody<Contract['createAccountLog'], 201>>().toEqualTypeOf<AccountLog>();
    expectTypeOf<ClientInferResponseBody<Contract['listPages'], 200>>().toEqualTypeOf<Paginated<Page>>();
  });

  it('takes path parameters with the specification names', () => {
    type Params = ClientInferRequest<Contract['getAccount']>['params'];
    expectTypeOf<Params>().toEqualTypeOf<{ account_id: string }>();
  });

  it('knows which operations are paginated', () => {
    expectTypeOf<'listPages'>().toExtend<PaginatedOperationName>();
    expectTypeOf<'listAccountActivity'>().toExtend<PaginatedOperationName>();
    expectTypeOf<'getAccount'>().not.toExtend<PaginatedOperationName>();
    expectTypeOf(OPERATION_NAMES).toEqualTypeOf<(keyof typeof contract)[]>();
  });
});
