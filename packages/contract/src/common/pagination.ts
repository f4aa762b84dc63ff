import { z } from 'zod';
import { CountSchema } from './primitives.js';

/** Default number of items on a page of any collection. */
export const DEFAULT_PAGE_LIMIT = 20;
/** Largest page size any collection accepts. */
export const MAX_PAGE_LIMIT = 100;

/**
 * Opaque cursor taken from a previous page's `nextCursor`; forged or foreign cursors are rejected
 * with 400. Empty (`?cursor=`) is the same as absent: the first page.
 */
export const CursorSchema = z
  .string()
  .max(1024)
  .describe("Opaque value taken from a previous page's nextCursor; empty or absent: the first page.");

/** An optional query parameter whose empty value (`?name=`) means the same as leaving it out. */
export const emptyIsAbsent = <T extends z.ZodType<string>>(schema: T) =>
  schema.optional().transform((value) => (value === '' ? undefined : value));

/** Page size: an integer from 1 to 100, default 20. Query strings are coerced to numbers. */
export const LimitSchema = z.coerce
  .number<number>()
  .int()
  .min(1)
  .max(MAX_PAGE_LIMIT)
  .default(DEFAULT_PAGE_LIMIT)
  .describe('Page size, 1 to 100 (default 20).');

/** Query parameters accepted by every collection endpoint. */
export const PaginationQuerySchema = z
  .object({
    cursor: emptyIsAbsent(CursorSchema),
    limit: LimitSchema,
  })
  .strict();
/** Parsed pagination query (`limit` always present after defaults). */
export type PaginationQuery = z.infer<typeof PaginationQuerySchema>;

/**
 * Builds the specification's pagination envelope around an item schema:
 * `items`, `hasMore`, `nextCursor` (null or non-empty) and `totalCount` (exact count of every match).
 */
export function paginated<TItem extends z.ZodType>(item: TItem) {
  return z.object({
    items: z.array(item),
    hasMore: z.boolean().describe('True when another page is available.'),
    nextCursor: z
      .string()
      .min(1)
      .nullable()
      .describe(
        'Pass back as the cursor query parameter for the next page; null when there are no more results.',
      ),
    totalCount: CountSchema.describe('Exact number of items matching the query across all pages.'),
  });
}

/** The pagination envelope of a collection whose items are `T`. */
export interface Paginated<T> {
  /** Entries of this page of results. */
  items: T[];
  /** True when another page is available. */
  hasMore: boolean;
  /** Cursor for the next page, or null on the last page. */
  nextCursor: string | null;
  /** Exact number of matching items across all pages. */
  totalCount: number;
}
