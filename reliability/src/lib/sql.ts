import type { Database } from '@customer-api/server';

/**
 * Runs SQL a test writes out to arrange or inspect stored state (`$n` parameters, `values` in
 * order) as an unnamed statement through the server's own data-access port (`Database.db`), the
 * way the server's tests do (`apps/server/src/test/sql.ts`). A jsonb value must be passed as its
 * JSON text.
 */
export function query<R = Record<string, unknown>>(
  database: Database,
  text: string,
  values: readonly unknown[] = [],
): Promise<R[]> {
  return database.db.all<null, R>(
    { name: '', text, values: () => [...values], row: undefined, format: 'values' },
    null,
  );
}
