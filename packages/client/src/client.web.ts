import { contract } from '@customer-api/contract';
import { buildClient, type ClientOptions, type CustomerApiClient, globalFetch } from './client-core.js';

/**
 * Creates a client for the Customer API. On Bun, Deno, Workers and React Native requests go
 * through the runtime's global `fetch`, which pools connections itself.
 *
 * @example
 * ```ts
 * const client = createClient({ apiKey: env.CUSTOMER_API_KEY, baseUrl: env.CUSTOMER_API_BASE_URL });
 * const page = await client.listPages({ query: { limit: 50 } });
 * ```
 * @throws TypeError when no API key is given and `CUSTOMER_API_KEY` is unset.
 */
export function createClient(options: ClientOptions = {}): CustomerApiClient {
  return buildClient(options, { fetch: globalFetch, contract });
}
