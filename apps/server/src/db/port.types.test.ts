import { describe, expectTypeOf, it } from 'vitest';
import { lockPage } from '../modules/pages/pages.service.js';
import type { Db, Tx } from './port.js';

// `pnpm typecheck` compiles this file: each `@ts-expect-error` below must be an error, or the
// compile fails. With transaction-handles.test.ts (an outer handle reached in a transaction's body)
// and the adapters' refusal at run time (decision 0238), it keeps statements inside their transaction.
describe('statements that only mean something inside a transaction', () => {
  it('take the transaction, and the type checker refuses the outer handle', () => {
    expectTypeOf(lockPage).parameter(0).toEqualTypeOf<Tx>();
    const publish = (db: Db) =>
      db.transaction(async (tx) => {
        await lockPage(tx, 'tenant', 'page');
        // @ts-expect-error the lock would be taken and dropped on a connection of its own
        await lockPage(db, 'tenant', 'page');
      });
    expectTypeOf(publish).returns.resolves.toBeVoid();
  });
});
