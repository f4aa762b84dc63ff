import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from './client.js';

const current = new AsyncLocalStorage<Db>();

/**
 * A handle that is `base`, except inside {@link runWithDb}, where it is the transaction given
 * there. Services keep taking `deps.db`; the idempotency wrapper runs a handler with its
 * transaction in place, so the handler's writes and the stored response commit together
 * (a service's own `transaction()` becomes a savepoint of it).
 */
export function requestScopedDb(base: Db): Db {
  return new Proxy(base, {
    get(target, property) {
      const db = current.getStore() ?? target;
      const value: unknown = Reflect.get(db, property, db);
      return typeof value === 'function' ? value.bind(db) : value;
    },
  });
}

/** Runs `fn` with {@link requestScopedDb} handles resolving to `db`. */
export function runWithDb<T>(db: Db, fn: () => Promise<T>): Promise<T> {
  return current.run(db, fn);
}
