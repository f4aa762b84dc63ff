import { buildClient, type ClientOptions, type CustomerApiClient, globalFetch } from './client-core.js';

/**
 * Creates a client for the Customer API. In browsers requests go through the page's `fetch`. This
 * build carries none of the contract's schemas: to validate responses, pass the contract,
 * `validateResponses: contract` (from `@customer-api/contract`), since `true` has none to use.
 *
 * @example
 * ```ts
 * const client = createClient({ apiKey, baseUrl: 'https://api.example.com' });
 * const page = await client.listPages({ query: { limit: 50 } });
 * ```
 * @throws TypeError when no API key is given, or when `validateResponses` is `true`.
 */
export function createClient(options: ClientOptions = {}): CustomerApiClient {
  return buildClient(options, { fetch: globalFetch });
}
