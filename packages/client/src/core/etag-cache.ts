/** Bounds of the client's conditional-GET cache (`etagCache` in the client options). */
export interface EtagCacheOptions {
  /** Most resources kept (default 500); the least recently used goes first. */
  maxEntries?: number;
  /**
   * Most JSON text kept, summed over the entries, in characters (bytes for ASCII; default
   * 8,388,608, 8 MiB). A body larger than this on its own is not kept.
   */
  maxChars?: number;
}

/** Defaults of {@link EtagCacheOptions}. */
export const DEFAULT_ETAG_CACHE: Required<EtagCacheOptions> = { maxEntries: 500, maxChars: 8 * 1024 * 1024 };

/** One kept representation: its tag and the JSON text it came as. */
export interface CachedBody {
  readonly etag: string;
  readonly text: string;
}

/**
 * The last representation of each single-resource read, keyed by API key, URL (base URL, path and
 * query) and nothing else: a least-recently-used map bounded by entries and characters. The
 * server decides freshness on every call (304 or a new body), so an entry is never served without
 * asking, and a write needs no invalidation here.
 */
export class EtagCache {
  readonly #entries = new Map<string, CachedBody>();
  readonly #maxEntries: number;
  readonly #maxChars: number;
  #chars = 0;

  /** @throws RangeError when a bound is not a positive integer. */
  constructor(options: EtagCacheOptions = {}) {
    this.#maxEntries = positiveInteger('maxEntries', options.maxEntries ?? DEFAULT_ETAG_CACHE.maxEntries);
    this.#maxChars = positiveInteger('maxChars', options.maxChars ?? DEFAULT_ETAG_CACHE.maxChars);
  }

  /** The kept representation of `key`, marked as the most recently used. */
  get(key: string): CachedBody | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry;
  }

  /** Keeps `entry` under `key`, evicting the least recently used beyond the bounds. */
  set(key: string, entry: CachedBody): void {
    this.delete(key);
    if (entry.text.length > this.#maxChars) return;
    this.#entries.set(key, entry);
    this.#chars += entry.text.length;
    for (const [oldest, kept] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && this.#chars <= this.#maxChars) break;
      this.#entries.delete(oldest);
      this.#chars -= kept.text.length;
    }
  }

  /** Forgets `key`. */
  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#chars -= entry.text.length;
  }

  /** Number of kept representations. */
  get size(): number {
    return this.#entries.size;
  }
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0)
    throw new RangeError(`etagCache.${name} must be a positive integer`);
  return value;
}
