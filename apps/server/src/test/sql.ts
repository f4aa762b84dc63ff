import type { Handle } from '../db/port.js';
import type { Statement } from '../db/sql.js';

/**
 * Runs SQL a test writes out to arrange or inspect stored state (`$n` parameters, `values` in
 * order), as an unnamed statement through the port: tests reach the tables the way the server
 * does. Production code defines its statements with `statement()` instead.
 */
export async function query<R = Record<string, unknown>>(
  db: Handle,
  text: string,
  values: readonly unknown[] = [],
): Promise<R[]> {
  const adHoc: Statement<null, R> = {
    name: '',
    text,
    values: () => [...values],
    row: undefined,
    format: 'values',
  };
  return db.all(adHoc, null);
}
