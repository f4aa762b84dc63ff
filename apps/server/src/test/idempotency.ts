import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from './test-app.js';

/** A page to create: its POST is the idempotent write most tests repeat. */
export const PAGE = {
  name: 'Landing',
  title: 'Welcome',
  pageContext: 'ctx',
  brandId: 'b',
  pageType: 'inbound',
};

/** Requests with or without an `Idempotency-Key`, as the test tenant or with another key. */
export function idempotentRequests(t: TestApp) {
  function send(
    method: 'POST' | 'PATCH' | 'GET' | 'DELETE',
    url: string,
    key: string | undefined,
    payload?: unknown,
    apiKey?: string,
  ): Promise<LightMyRequestResponse> {
    const headers = { ...t.auth(apiKey), ...(key === undefined ? {} : { 'idempotency-key': key }) };
    return t.app.inject({
      method,
      url,
      headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  }

  const createPage = (key: string | undefined, body: object = PAGE) => send('POST', '/v0/pages', key, body);

  async function pageCount(): Promise<number> {
    return (await send('GET', '/v0/pages', undefined)).json<{ totalCount: number }>().totalCount;
  }

  return { send, createPage, pageCount };
}

/** `again` is `first` replayed: the same status and bytes, marked as a replay. */
export function expectReplay(first: LightMyRequestResponse, again: LightMyRequestResponse): void {
  expect(again.statusCode).toBe(first.statusCode);
  expect(again.body).toBe(first.body);
  expect(again.headers['idempotent-replayed']).toBe('true');
  expect(first.headers['idempotent-replayed']).toBeUndefined();
}
