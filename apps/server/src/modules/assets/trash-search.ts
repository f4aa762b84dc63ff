import type { Handle } from '../../db/port.js';
import { readCounter } from '../../lib/counters.js';
import { ValidationError } from '../../lib/errors.js';

/**
 * Largest trash a search without trigrams may scan. Such a search (`%%%`, `ab`) cannot use the
 * trigram index, so it reads every trashed asset of the tenant twice (page and exact count):
 * cheap up to this size, a core-hogging scan beyond it (200k rows took 1.3 s).
 */
export const UNINDEXED_SEARCH_MAX_ROWS = 10_000;

/** Three letters or digits in a row: the least a pattern needs for pg_trgm to extract a trigram. */
const TRIGRAM = /[\p{L}\p{N}]{3}/u;

/** True when the trigram index can serve a substring search for `text`. */
export function isIndexable(text: string): boolean {
  return TRIGRAM.test(text);
}

/**
 * Refuses (400) a search the index cannot serve when the tenant's trash is large, so one
 * tenant's searches stay cheap whatever text it sends; small trashes are searched for anything.
 */
export async function assertSearchable(
  db: Handle,
  tenantId: string,
  query: string | undefined,
  trashCounter: string,
): Promise<void> {
  if (!query || isIndexable(query)) return;
  if ((await readCounter(db, tenantId, trashCounter)) <= UNINDEXED_SEARCH_MAX_ROWS) return;
  throw ValidationError.of(
    'query',
    `With more than ${UNINDEXED_SEARCH_MAX_ROWS} assets in the trash, a search needs at least three letters or digits in a row.`,
    ['query'],
  );
}
