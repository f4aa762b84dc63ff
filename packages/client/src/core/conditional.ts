import type { OperationName } from '@customer-api/contract';
import type { RouteInfo } from '../generated/routes.js';
import type { CachedBody, EtagCache } from './etag-cache.js';

/** `ifMatch` and `ifNoneMatch` as a call receives them (typed per operation in `types.ts`). */
export interface ConditionalOptions {
  ifMatch?: string;
  ifNoneMatch?: string | undefined;
}

/** What a read that goes through the `etagCache` revalidates, and where its answer is kept. */
export interface CacheSlot {
  cache: EtagCache;
  key: string;
  /** The representation held when the call started; a 304 answers with it. */
  kept: CachedBody | undefined;
}

const ETAG = Symbol.for('@customer-api/client.etag');

/**
 * The `ETag` of the resource a result came from, quotes included (`"3q2-7wEjRWeJq83vEjRWeA"`),
 * ready to pass as `ifMatch` to a write or `ifNoneMatch` to a read; `undefined` for values the
 * client did not return and for answers without a tag (lists). Every read of one resource and
 * every write on one (except deletes that leave nothing to read) carries it. Like
 * `getRequestId`, it is a non-enumerable symbol property: it never shows in `JSON.stringify`,
 * spreads or `Object.keys`, so a copy of the result does not carry it.
 *
 * @example
 * ```ts
 * const topic = await client.getTopic({ params: { topic_id } });
 * await client.updateTopic({ params: { topic_id }, body: { name } }, { ifMatch: getEtag(topic) });
 * ```
 */
export function getEtag(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  return (result as { [ETAG]?: string })[ETAG];
}

/** Attaches a response's `ETag` to a result (see {@link getEtag}); returns the result. */
export function tagEtag<T extends object>(data: T, etag: string | undefined): T {
  if (etag !== undefined) Object.defineProperty(data, ETAG, { value: etag, enumerable: false });
  return data;
}

/**
 * `If-Match` and `If-None-Match` of one call. Options an operation does not take are refused
 * rather than dropped: a dropped `ifMatch` would turn a guarded write into an unguarded one.
 */
export function conditionalHeaders(
  name: OperationName,
  route: RouteInfo,
  options: ConditionalOptions,
  slot: CacheSlot | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if ('ifMatch' in options) {
    if (!route.ifMatch) throw new TypeError(`${name} takes no ifMatch`);
    if (typeof options.ifMatch !== 'string' || options.ifMatch === '') {
      throw new TypeError(
        `${name}: ifMatch is ${JSON.stringify(options.ifMatch)}; pass the ETag of your last read (getEtag), or leave ifMatch out to write unconditionally`,
      );
    }
    headers['if-match'] = options.ifMatch;
  }
  if (options.ifNoneMatch !== undefined) {
    if (!route.ifNoneMatch) throw new TypeError(`${name} takes no ifNoneMatch`);
    headers['if-none-match'] = options.ifNoneMatch;
  } else if (slot?.kept) {
    headers['if-none-match'] = slot.kept.etag;
  }
  return headers;
}

/**
 * The cache entry of a read of one resource when the client keeps them and the caller named no
 * `ifNoneMatch` of their own (whose 304 means "your copy", not the client's).
 */
export function cacheSlot(
  cache: EtagCache | undefined,
  route: RouteInfo,
  apiKey: string,
  url: string,
  options: ConditionalOptions,
): CacheSlot | undefined {
  if (!cache || !route.ifNoneMatch || options.ifNoneMatch !== undefined) return undefined;
  const key = `${apiKey}\n${url}`;
  return { cache, key, kept: cache.get(key) };
}

/** Keeps a 200's body under its tag, or forgets the entry when the answer has no tag or a 404. */
export function remember(slot: CacheSlot, status: number, etag: string | undefined, text: string): void {
  if (status === 200 && etag !== undefined) slot.cache.set(slot.key, { etag, text });
  else if (status === 200 || status === 404 || status === 410) slot.cache.delete(slot.key);
}
