import type { OperationName, Paginated } from '@customer-api/contract';
import { ROUTES } from '../generated/routes.js';
import type { CallArgs } from './request.js';
import type { RequestOptions } from './types.js';

/** Fetches one page of a paginated operation. */
export type PageFetcher = (name: OperationName, args: CallArgs, options?: RequestOptions) => Promise<unknown>;

/**
 * Walks a collection page by page, passing each `nextCursor` back as `cursor` until `hasMore`
 * is false. Starts at `args.query.cursor` when given, so an interrupted walk can resume.
 * A cursor seen twice means the server is looping: that fails instead of spinning forever.
 */
export async function* paginate(
  fetchPage: PageFetcher,
  name: OperationName,
  args: CallArgs = {},
  options: RequestOptions = {},
): AsyncGenerator<Paginated<unknown>, void, undefined> {
  if (!ROUTES[name].paginated) throw new TypeError(`${name} is not a paginated operation`);
  const seen = new Set<string>();
  let query: Record<string, unknown> = { ...args.query };
  for (;;) {
    const page = (await fetchPage(name, { ...args, query }, options)) as Paginated<unknown>;
    yield page;
    if (!page.hasMore || page.nextCursor === null) return;
    if (seen.has(page.nextCursor)) throw new Error(`${name} returned the cursor ${page.nextCursor} twice`);
    seen.add(page.nextCursor);
    query = { ...query, cursor: page.nextCursor };
  }
}

/** Every item of every page, in order; stops fetching as soon as the consumer breaks out. */
export async function* paginateItems(
  fetchPage: PageFetcher,
  name: OperationName,
  args?: CallArgs,
  options?: RequestOptions,
): AsyncGenerator<unknown, void, undefined> {
  for await (const page of paginate(fetchPage, name, args, options)) yield* page.items;
}
