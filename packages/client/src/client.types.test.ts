import {
  type AccountLog,
  contract,
  OPERATION_NAMES,
  operationMeta,
  type Page,
  type PaginatedOperationName,
  type Topic,
} from '@customer-api/contract';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createClient } from './client.js';
import type { CustomerApiClient } from './client-core.js';
import type {
  IfMatchOperationName,
  IfNoneMatchOperationName,
  OperationArgs,
  OperationItem,
  OperationResult,
} from './core/types.js';

// Exactly the type-level unions: a missing or an extra key fails the type check.
const IF_MATCH: Record<IfMatchOperationName, true> = {
  archivePage: true,
  deletePage: true,
  restorePage: true,
  archiveAudience: true,
  restoreAudience: true,
  publishAudienceVersion: true,
  cancelAudienceVersion: true,
  createAudienceMessage: true,
  restoreAudienceMessage: true,
  publishAudienceMessage: true,
  trashAsset: true,
  updateTopic: true,
  deleteWebhookSubscription: true,
  updateWebhookSubscription: true,
  rotateWebhookSubscriptionSecret: true,
};
const IF_NONE_MATCH: Record<IfNoneMatchOperationName, true> = {
  getPage: true,
  getAudience: true,
  getAudienceVersion: true,
  getAudienceMessages: true,
  getAccount: true,
  getTopic: true,
  getAudienceSessionInteractions: true,
  getWebhookSubscription: true,
};

// Type-level tests: `pnpm run typecheck` fails when inference degrades (e.g. to `any`).
// The calls sit in functions that never run: only their types matter.
const client = createClient({ apiKey: 'k' });

describe('method types come from the contract', () => {
  it('results are the success bodies, not any', () => {
    expectTypeOf<OperationResult<'getPage'>>().toEqualTypeOf<Page>();
    expectTypeOf<OperationResult<'createAccountLog'>>().toEqualTypeOf<AccountLog>();
    expectTypeOf<OperationResult<'listTopics'>['items']>().toEqualTypeOf<Topic[]>();
    expectTypeOf<OperationItem<'listPages'>>().toEqualTypeOf<Page>();
    const read = () => client.getPage({ params: { page_id: 'p' } });
    expectTypeOf(read).returns.resolves.toEqualTypeOf<Page>();
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
    const read = () => client.withResponse.getPage({ params: { page_id: 'p' } });
    expectTypeOf(read).returns.resolves.toHaveProperty('data').toEqualTypeOf<Page>();
    expectTypeOf<Awaited<ReturnType<CustomerApiClient['withResponse']['getTopic']>>['etag']>().toEqualTypeOf<
      string | undefined
    >();
  });
});

describe('conditional requests', () => {
  it('the operations taking ifMatch and ifNoneMatch are those the contract marks', () => {
    // Uploads take theirs as an option of putAssetContent and putAssetPreview (not generic methods).
    const ifMatch = OPERATION_NAMES.filter(
      (name) => operationMeta(name).ifMatch && !operationMeta(name).bytes,
    );
    const ifNoneMatch = OPERATION_NAMES.filter(
      (name) => contract[name].method === 'GET' && operationMeta(name).resource !== undefined,
    );
    expect(Object.keys(IF_MATCH).sort()).toEqual(ifMatch.sort());
    expect(Object.keys(IF_NONE_MATCH).sort()).toEqual(ifNoneMatch.sort());
  });

  it('ifMatch is typed only on writes that take it, ifNoneMatch only on reads of one resource', () => {
    const check = () => {
      void client.updateTopic({ params: { topic_id: 't' }, body: { title: 't' } }, { ifMatch: '"e"' });
      void client.deletePage({ params: { page_id: 'p' } }, { ifMatch: '"e"' });
      void client.getTopic({ params: { topic_id: 't' } }, { ifNoneMatch: '"e"' });
      // @ts-expect-error getPage is a read: it takes ifNoneMatch, not ifMatch
      void client.getPage({ params: { page_id: 'p' } }, { ifMatch: '"e"' });
      // @ts-expect-error a write takes no ifNoneMatch
      void client.archivePage({ params: { page_id: 'p' } }, { ifNoneMatch: '"e"' });
      // @ts-expect-error lists have no ETag
      void client.listPages({}, { ifNoneMatch: '"e"' });
      // @ts-expect-error creates have nothing to match yet
      void client.createTopic({ body: { title: 't' } }, { ifMatch: '"e"' });
    };
    expectTypeOf(check).toBeFunction();
  });

  it('a read with ifNoneMatch may resolve to undefined (304); without, it resolves to the body', () => {
    const etag: string | undefined = '"e"';
    const conditional = () => client.getPage({ params: { page_id: 'p' } }, { ifNoneMatch: etag });
    const plain = () => client.getPage({ params: { page_id: 'p' } }, { timeoutMs: 5 });
    expectTypeOf(conditional).returns.resolves.toEqualTypeOf<Page | undefined>();
    expectTypeOf(plain).returns.resolves.toEqualTypeOf<Page>();
    const raw = () => client.withResponse.getTopic({ params: { topic_id: 't' } }, { ifNoneMatch: '"e"' });
    expectTypeOf(raw).returns.resolves.toHaveProperty('data').toEqualTypeOf<Topic | undefined>();
  });
});
