import { Pool } from 'undici';

/** A response read in full. */
export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  text: string;
}

/** A keep-alive connection pool to one server. */
export function pool(url: string, connections = 50): Pool {
  return new Pool(url, { connections, pipelining: 1, keepAliveTimeout: 30_000 });
}

/** Sends one request; the body is sent as JSON when given. */
export async function call(
  client: Pool,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  options: { apiKey?: string; body?: unknown; timeoutMs?: number } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await client.request({
    method,
    path,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    headersTimeout: options.timeoutMs ?? 30_000,
    bodyTimeout: options.timeoutMs ?? 30_000,
  });
  const text = await res.body.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.statusCode, headers: res.headers, body, text };
}

/** Reads every page of a paginated listing (`limit=100`, following `nextCursor`). */
export async function readAll<T>(client: Pool, path: string, apiKey: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  const sep = path.includes('?') ? '&' : '?';
  for (;;) {
    const page = await call(
      client,
      'GET',
      `${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { apiKey },
    );
    if (page.status !== 200) throw new Error(`GET ${path}: ${page.status} ${page.text}`);
    const body = page.body as { items: T[]; hasMore: boolean; nextCursor: string | null };
    items.push(...body.items);
    if (!body.hasMore || !body.nextCursor) return items;
    cursor = body.nextCursor;
  }
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
