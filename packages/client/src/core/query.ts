/**
 * The query string of a call, with its `?`, or `''` when nothing is set. Arrays and objects are
 * written as `key[0]=…` and `key[field]=…` (as `qs` and ts-rest write them), dates as ISO 8601,
 * `null` as an empty value; `undefined` leaves the key out.
 */
export function queryString(query: Record<string, unknown> | undefined): string {
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(query ?? {})) addPairs(pairs, key, value);
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}

function addPairs(pairs: string[], key: string, value: unknown): void {
  if (value === undefined) return;
  if (value === null) {
    pairs.push(pair(key, ''));
  } else if (value instanceof Date) {
    pairs.push(pair(key, value.toISOString()));
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) addPairs(pairs, `${key}[${index}]`, item);
  } else if (typeof value === 'object') {
    for (const [field, item] of Object.entries(value)) addPairs(pairs, `${key}[${field}]`, item);
  } else {
    pairs.push(pair(key, String(value)));
  }
}

function pair(key: string, value: string): string {
  return `${encodeURIComponent(key)}=${encodeURIComponent(value)}`;
}
