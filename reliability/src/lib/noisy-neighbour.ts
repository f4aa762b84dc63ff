import { ErrorSchema } from '@customer-api/contract';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { type InProcessApp, startInProcess } from './in-process.js';

/** A tenant of the noisy-neighbour findings: A makes the noise, B must not notice. */
export interface Tenant {
  tenantId: string;
  apiKey: string;
}

/** The real app in this process, with the rate limit far away, and its tenants A and B. */
export async function startNoisyTenants(): Promise<{ server: InProcessApp; a: Tenant; b: Tenant }> {
  const server = await startInProcess({ RATE_LIMIT_MAX: '1000' });
  return { server, a: await server.tenant('noisy-a'), b: await server.tenant('noisy-b') };
}

/** JSON requests as a key's tenant, and a page with an audience to write messages to. */
export interface NoisyRequests {
  get(apiKey: string, url: string): Promise<LightMyRequestResponse>;
  post(apiKey: string, url: string, payload: string): Promise<LightMyRequestResponse>;
  /** A page and audience of `apiKey`'s tenant; returns the audience's path. */
  audiencePath(apiKey: string): Promise<string>;
}

/** {@link NoisyRequests} to `server()` (read at each request: the server starts in `beforeAll`). */
export function noisyRequests(server: () => InProcessApp): NoisyRequests {
  const get = (apiKey: string, url: string) => server().app.inject({ url, headers: { 'x-api-key': apiKey } });
  const post = (apiKey: string, url: string, payload: string) =>
    server().app.inject({
      method: 'POST',
      url,
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      payload,
    });

  /** A page and audience of `apiKey`'s tenant; returns the audience's path. */
  async function audiencePath(apiKey: string): Promise<string> {
    const page = await post(apiKey, '/v0/pages', PAGE_BODY);
    const audience = await post(apiKey, `/v0/pages/${page.json().pageId}/audiences`, '{}');
    return `/v0/pages/${page.json().pageId}/audiences/${audience.json().audienceId}`;
  }

  return { get, post, audiencePath };
}

/** `res` is the error object with `status` and `code`; returns the parsed body. */
export function expectError(res: { statusCode: number; body: string }, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status);
  const body = ErrorSchema.parse(JSON.parse(res.body));
  expect(body.code).toBe(code);
  return body;
}

/** A valid createPage body. */
export const PAGE_BODY = '{"name":"n","title":"t","pageContext":"c","brandId":"b","pageType":"inbound"}';
