import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { Paginated } from '@customer-api/contract';
import { type Param, raw, type Sql, sql } from '../db/sql.js';
import { ValidationError } from './errors.js';

/** What a cursor is bound to: it is only valid for the same tenant, operation and filters. */
export interface CursorBinding {
  tenantId: string;
  operation: string;
  /** Filters of the listing (parent ids, flags); a cursor from other filters is rejected. */
  filters?: Record<string, string | number | boolean | null | undefined>;
}

/** Position of the last item of a page in newest-first `(created_at, id)` order. */
export interface KeysetPosition {
  createdAt: Date;
  id: string;
}

const VERSION = 1;

function bindingKey(binding: CursorBinding): string {
  const filters = Object.entries(binding.filters ?? {})
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify([binding.tenantId, binding.operation, filters]);
}

const invalidCursor = () =>
  ValidationError.of(
    'query',
    "The cursor is not valid for this request; take it from the previous page's nextCursor.",
    ['cursor'],
  );

/**
 * Tamper-evident keyset cursors: `base64url(position) . base64url(HMAC-SHA256)`, the MAC covering
 * the position and its binding (tenant, operation, filters). The key is shared by every process
 * through the database, so any process accepts cursors issued by another.
 */
export class CursorCodec {
  /** A key object, not bytes: Node 24 imports raw key bytes again for every HMAC (~11 µs each). */
  readonly #key: KeyObject;

  constructor(secret: string) {
    this.#key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  #mac(binding: CursorBinding, payload: string): Buffer {
    return createHmac('sha256', this.#key).update(bindingKey(binding)).update('\n').update(payload).digest();
  }

  /** Encodes the position after which the next page starts. */
  encode(binding: CursorBinding, position: KeysetPosition): string {
    const payload = Buffer.from(
      JSON.stringify([VERSION, position.createdAt.getTime(), position.id]),
    ).toString('base64url');
    return `${payload}.${this.#mac(binding, payload).toString('base64url')}`;
  }

  /** Decodes a cursor; a forged, altered or foreign cursor is 400 VALIDATION_ERROR. */
  decode(binding: CursorBinding, cursor: string): KeysetPosition {
    const [payload, mac, extra] = cursor.split('.');
    if (!payload || !mac || extra !== undefined) throw invalidCursor();
    const given = Buffer.from(mac, 'base64url');
    const expected = this.#mac(binding, payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidCursor();
    try {
      const [version, ms, id] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
      if (version !== VERSION || typeof ms !== 'number' || typeof id !== 'string') throw invalidCursor();
      return { createdAt: new Date(ms), id };
    } catch {
      throw invalidCursor();
    }
  }
}

/**
 * `(created_at, id) < (position)`: the rows after a position in newest-first order, for a list
 * statement's `_after` variant (`alias` qualifies the columns; `columns` names others).
 */
export function keysetAfter(
  position: { createdAt: Param<Date>; id: Param<string> },
  options: { alias?: string; columns?: readonly [string, string] } = {},
): Sql {
  const from = options.alias ? `${options.alias}.` : '';
  const [createdAt, id] = options.columns ?? ['created_at', 'id'];
  return sql`(${raw(`${from}${createdAt}, ${from}${id}`)}) < (${position.createdAt}::timestamptz, ${position.id})`;
}

/** Inputs of {@link toPage}. */
export interface PageInput<Row, Item> {
  /** Rows fetched with `LIMIT limit + 1`, in page order. */
  rows: Row[];
  limit: number;
  totalCount: number;
  position: (row: Row) => KeysetPosition;
  map: (row: Row) => Item;
  encode: (position: KeysetPosition) => string;
}

/** Builds the pagination envelope from `limit + 1` fetched rows (the extra row proves `hasMore`). */
export function toPage<Row, Item>(input: PageInput<Row, Item>): Paginated<Item> {
  const hasMore = input.rows.length > input.limit;
  const rows = hasMore ? input.rows.slice(0, input.limit) : input.rows;
  const last = rows.at(-1);
  return {
    items: rows.map(input.map),
    hasMore,
    nextCursor: hasMore && last ? input.encode(input.position(last)) : null,
    totalCount: input.totalCount,
  };
}

/** A newest-first keyset listing for {@link keysetPage}. */
export interface KeysetListing<Row extends KeysetPosition, Item> {
  cursors: CursorCodec;
  /** What the listing's cursors are bound to. */
  binding: CursorBinding;
  query: { cursor?: string | undefined; limit: number };
  /** Fetches `take` rows after `after` (or from the start), in page order. */
  fetch: (take: number, after: KeysetPosition | undefined) => Promise<Row[]>;
  /** The exact number of matches across all pages. */
  count: () => Promise<number> | number;
  map: (row: Row) => Item;
  /** The row's place in the order; its own `createdAt` and `id` by default. */
  position?: (row: Row) => KeysetPosition;
}

/**
 * One page of a keyset listing: decodes the cursor (400 when forged or foreign), fetches
 * `limit + 1` rows and the count together, and builds the envelope with the next cursor.
 */
export async function keysetPage<Row extends KeysetPosition, Item>(
  listing: KeysetListing<Row, Item>,
): Promise<Paginated<Item>> {
  const { cursors, binding, query } = listing;
  const after = query.cursor ? cursors.decode(binding, query.cursor) : undefined;
  const [rows, totalCount] = await Promise.all([listing.fetch(query.limit + 1, after), listing.count()]);
  return toPage({
    rows,
    limit: query.limit,
    totalCount,
    position: listing.position ?? ((row) => ({ createdAt: row.createdAt, id: row.id })),
    map: listing.map,
    encode: (p) => cursors.encode(binding, p),
  });
}
