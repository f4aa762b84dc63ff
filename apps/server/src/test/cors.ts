import { createRequire } from 'node:module';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { type TestApp, useTestApp } from './test-app.js';

export const PAGE_ORIGIN = 'https://pages.example.com';
export const OTHER_ORIGIN = 'https://elsewhere.example.net';

/** The app of the CORS tests: two listed origins and a rate limit a test can spend. */
export function useCorsTestApp(): TestApp {
  return useTestApp({
    env: { CORS_ALLOWED_ORIGINS: `http://localhost:5173,${PAGE_ORIGIN}`, RATE_LIMIT_MAX: '12' },
  });
}

interface Operation {
  parameters?: Array<{ $ref?: string; in?: string; name?: string }>;
  responses: Record<string, { $ref?: string; headers?: Record<string, unknown> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: {
    parameters: Record<string, { in: string; name: string }>;
    responses: Record<string, { headers?: Record<string, unknown> }>;
  };
}
const spec = createRequire(import.meta.url)('@customer-api/contract/openapi.json') as Document;
const operations = Object.values(spec.paths).flatMap((item) => Object.entries(item));
/** Every method the document's operations use, upper case. */
export const documentedMethods = new Set(operations.map(([method]) => method.toUpperCase()));
/** Every request header the document declares, lower case. */
export const documentedRequestHeaders = new Set(
  operations.flatMap(([, op]) =>
    (op.parameters ?? [])
      .map((p) => (p.$ref ? spec.components.parameters[p.$ref.split('/').pop() ?? ''] : p))
      .filter((p) => p?.in === 'header')
      .map((p) => (p?.name ?? '').toLowerCase()),
  ),
);
/** Every response header the document declares, lower case. */
export const documentedResponseHeaders = new Set(
  operations.flatMap(([, op]) =>
    Object.values(op.responses).flatMap((r) => {
      const response = r.$ref ? spec.components.responses[r.$ref.split('/').pop() ?? ''] : r;
      return Object.keys(response?.headers ?? {}).map((name) => name.toLowerCase());
    }),
  ),
);

/** A comma-separated header as its lower-case parts. */
export const list = (header: string | string[] | number | undefined) =>
  String(header ?? '')
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter(Boolean);

/** The names of the response's CORS headers. */
export function corsHeaders(res: LightMyRequestResponse): string[] {
  return Object.keys(res.headers).filter((name) => name.startsWith('access-control-'));
}

/** A browser lets a page of `origin` read `res`, its error headers included. */
export function expectReadableBy(res: LightMyRequestResponse, origin: string): void {
  expect(res.headers['access-control-allow-origin'], res.body).toBe(origin);
  expect(list(res.headers.vary)).toContain('origin');
  expect(list(res.headers['access-control-expose-headers'])).toEqual(
    expect.arrayContaining(['x-request-id', 'ratelimit-remaining', 'retry-after', 'idempotent-replayed']),
  );
  // Credentials travel in x-api-key, never in cookies.
  expect(res.headers['access-control-allow-credentials']).toBeUndefined();
}
