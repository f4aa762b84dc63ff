import { contract } from '@customer-api/contract';
import { Agent, fetch as undiciFetch } from 'undici';
import { buildClient, type ClientOptions, type CustomerApiClient } from './client-core.js';
import { undiciRequest } from './core/node-request.js';
import type { FetchLike } from './core/transport.js';

/**
 * Creates a client for the Customer API. On Node.js requests go through undici: each client owns
 * a keep-alive `Agent` unless given a `fetch` or `dispatcher`, and `client.close()` closes it.
 *
 * @example
 * ```ts
 * const client = createClient({ apiKey: process.env.CUSTOMER_API_KEY });
 * const page = await client.listPages({ query: { limit: 50 } });
 * const account = await client.getAccount({ params: { account_id: 'account_01jd…' } });
 * ```
 * @throws TypeError when no API key is given and `CUSTOMER_API_KEY` is unset.
 */
export function createClient(options: ClientOptions = {}): CustomerApiClient {
  return buildClient(options, {
    fetch: undiciFetch as unknown as FetchLike,
    makeDispatcher: () => new Agent({ keepAliveTimeout: 10_000 }),
    makeRequest: undiciRequest,
    contract,
  });
}
