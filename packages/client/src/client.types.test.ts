import type { AccountLog, Page, PaginatedOperationName, Topic } from '@customer-api/contract';
import { describe, expectTypeOf, it } from 'vitest';
import { createClient } from './client.js';
import type { CustomerApiClient } from './client-core.js';
import type { OperationArgs, OperationItem, OperationResult } from './core/types.js';

// Type-level tests: `pnpm run typecheck` fails when inference degrades (e.g. to `any`).
// The calls sit in functions that never run: only their types matter.
const client = createClient({ apiKey: 'k' });

describe('method types come from the contract', () => {
  it('results are the success bodies, not any', () => {
    expectTypeOf<OperationResult<'getPage'>>().toEqualTypeOf<Page>();
    expectTypeOf<OperationResult<'createAccountLog'>>().toEqualTypeOf<AccountLog>();
    expectTypeOf<OperationResult<'listTopics'>['items']>().toEqualTypeOf<Topic[]>();
    expectTypeOf<OperationItem<'listPages'>>().toEqualTypeOf<Page>();
    expectTypeOf(client.getPage).returns.resolves.toEqualTypeOf<Page>();
    expectTypeOf<OperationResult<'getPage'>>().not.toBeAny();
  });

  it('path parameters use the contract’s snake_case names and are required', () => {
    expectTypeOf<OperationArgs<'getAccount'>>().toEqualTypeOf<{ params: { account_id: string } }>();
    const check = () => {
      // @ts-expect-error camelCase is not the contract's name
      void client.getAccount({ params: { accountId: 'a' } });
      // @ts-expect-error params are required
      void client.getAccount();
    };
    expectTypeOf(check).toBeFunction();
  });

  it('query and body are the contract’s input types, optional when nothing in them is required', () => {
    const check = () => {
      void client.listPages();
      void client.listAccounts({ query: { includeEmptyOnly: true, limit: 10 } });
      void client.restorePage({ params: { page_id: 'p' } });
      void client.createAccountLog({ body: { source: 'crm', payload: {}, domain: 'example.com' } });
      // @ts-expect-error limit is a number
      void client.listPages({ query: { limit: 'ten' } });
      // @ts-expect-error the body is required and needs source and payload
      void client.createAccountLog({ body: { domain: 'example.com' } });
      // @ts-expect-error deletePage takes no body
      void client.deletePage({ params: { page_id: 'p' }, body: {} });
    };
    expectTypeOf(check).toBeFunction();
  });

  it('iterate and pages accept paginated operations only', () => {
    expectTypeOf<'listAccounts'>().toExtend<PaginatedOperationName>();
    const check = async () => {
      for await (const page of client.iterate('listPages')) expectTypeOf(page).toEqualTypeOf<Page>();
      for await (const envelope of client.pages('listTopics', { query: { limit: 100 } })) {
        expectTypeOf(envelope.items).toEqualTypeOf<Topic[]>();
      }
      // @ts-expect-error getPage is not paginated
      client.iterate('getPage', { params: { page_id: 'p' } });
      // @ts-expect-error listAccountActivity needs its path parameter
      client.iterate('listAccountActivity');
    };
    expectTypeOf(check).toBeFunction();
  });

  it('withResponse wraps the same result', () => {
    expectTypeOf<
      Awaited<ReturnType<CustomerApiClient['withResponse']['getPage']>>['data']
    >().toEqualTypeOf<Page>();
  });
});
