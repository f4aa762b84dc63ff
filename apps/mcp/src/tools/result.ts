import type { FieldSelection } from './derive.js';

/** Default hard cap on the JSON of one tool result, in bytes (about 6,000 tokens). */
export const DEFAULT_MAX_RESULT_BYTES = 24_000;

/** Strings longer than this may be shortened when a result is still too large without arrays to cut. */
const SHORT_STRING = 200;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** What {@link fitResult} removed to stay under the cap. */
export interface Truncation {
  /**
   * Arrays that lost elements: `path` is dotted (`items`, `messages`); `from` says which end
   * was cut (`end`: the first `kept` remain; `start`: the last `kept` remain).
   */
  arrays: { path: string; kept: number; total: number; from: 'start' | 'end' }[];
  /** How many long strings were shortened (they end with `…`). */
  strings: number;
}

function bytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/** Keeps only the selected fields at the level the tool selects on. */
export function selectFields(data: unknown, selection: FieldSelection, fields: readonly string[]): unknown {
  const pick = (value: unknown) =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).filter(([key]) => fields.includes(key)))
      : value;
  if (selection.target === 'root') return pick(data);
  const page = data as { items?: unknown };
  return Array.isArray(page?.items) ? { ...page, items: page.items.map(pick) } : data;
}

function arrays(value: Json, path: string[], out: { path: string[]; array: Json[] }[]): typeof out {
  if (Array.isArray(value)) {
    if (value.length > 0) out.push({ path, array: value });
    for (const [i, child] of value.entries()) arrays(child, [...path, String(i)], out);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) arrays(child, [...path, key], out);
  }
  return out;
}

function strings(
  value: Json,
  visit: (holder: Json[] | { [key: string]: Json }, key: string | number) => void,
) {
  if (Array.isArray(value)) {
    for (const [i, child] of value.entries()) {
      if (typeof child === 'string') visit(value, i);
      else strings(child, visit);
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      if (typeof child === 'string') visit(value, key);
      else strings(child, visit);
    }
  }
}

/**
 * Drops whole elements from the end of the list at `data[listKey]` until the JSON fits, keeping at
 * least one, so a cut list ends at an element boundary. Works on (and returns) a copy.
 */
function cutList(
  copy: Json,
  listKey: string,
  maxBytes: number,
  size: number,
): { size: number; total: number } {
  const list = (copy as { [key: string]: Json })[listKey];
  if (!Array.isArray(list)) return { size, total: 0 };
  const total = list.length;
  let current = size;
  while (current > maxBytes && list.length > 1) {
    const removed = list.pop();
    current -= bytes(removed) + 1;
  }
  return { size: current, total };
}

/**
 * Cuts a result down to `maxBytes` of JSON while keeping it valid against the tool's output
 * schema. The result's main list (`listKey`: `items` of a page, `messages` of a history shown
 * newest first) first loses whole elements from its end, down to one; then the largest other
 * arrays lose elements (down to one each), then long strings are shortened, then the last
 * elements go. Other arrays lose their first elements (histories list oldest first). Returns
 * `undefined` when even that cannot make it fit.
 */
export function fitResult(
  data: unknown,
  maxBytes: number,
  listKey?: string,
): { data: unknown; truncation?: Truncation } | undefined {
  const state = { size: bytes(data), copy: structuredClone(data) as Json };
  if (state.size <= maxBytes) return { data };
  const cut = new Map<string, { kept: number; total: number; from: 'start' | 'end' }>();
  if (listKey !== undefined) {
    const list = cutList(state.copy, listKey, maxBytes, state.size);
    state.size = list.size;
    const kept = ((state.copy as { [key: string]: Json[] })[listKey] ?? []).length;
    if (kept < list.total) cut.set(listKey, { kept, total: list.total, from: 'end' });
  }
  const popLargest = (keep: number) => {
    while (state.size > maxBytes) {
      const candidates = arrays(state.copy, [], []).filter(
        (a) => a.array.length > (a.path.join('.') === listKey ? Math.max(keep, 1) : keep),
      );
      const [largest] = candidates.sort((a, b) => bytes(b.array) - bytes(a.array));
      if (!largest) return;
      const key = largest.path.join('.');
      const total = cut.get(key)?.total ?? largest.array.length;
      const from = key === listKey ? 'end' : 'start';
      const removed = from === 'end' ? largest.array.pop() : largest.array.shift();
      state.size -= bytes(removed) + (largest.array.length > 0 ? 1 : 0);
      cut.set(key, { kept: largest.array.length, total, from });
    }
  };
  popLargest(1);
  let shortened = 0;
  strings(state.copy, (holder, key) => {
    const text = (holder as Record<string | number, Json>)[key] as string;
    if (state.size <= maxBytes || text.length <= SHORT_STRING) return;
    const short = `${text.slice(0, SHORT_STRING)}…`;
    state.size -= bytes(text) - bytes(short);
    (holder as Record<string | number, Json>)[key] = short;
    shortened++;
  });
  popLargest(0);
  if (state.size > maxBytes) return undefined;
  const arraysCut = [...cut].map(([path, counts]) => ({ path, ...counts }));
  return { data: state.copy, truncation: { arrays: arraysCut, strings: shortened } };
}
