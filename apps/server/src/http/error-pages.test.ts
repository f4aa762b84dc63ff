import { ERROR_CATALOG, ErrorCodeSchema } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { expectApiError } from '../test/http-cases.js';
import { TEST_BASE_URL, useTestApp } from '../test/test-app.js';
import { prefersJson } from './error-pages.js';

const t = useTestApp();
const pathOf = (type: string) => new URL(type).pathname;

describe('error pages', () => {
  it("answers every error object's type URI with a page a person can read", async () => {
    const error = await t.app.inject({ url: '/v0/pages/pg_missing', headers: t.auth() });
    const { type } = expectApiError(error, 'NOT_FOUND');
    expect(type).toBe(`${TEST_BASE_URL}/errors/not_found`);
    const page = await t.app.inject({ url: pathOf(String(type)) });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.body).toContain('<h1>NOT_FOUND</h1>');
    expect(page.body).toContain('HTTP 404 Not Found.');
    expect(page.body).toContain('belongs to another tenant');
  });

  it.each(ErrorCodeSchema.options)('serves %s as HTML and as JSON from the one catalogue', async (code) => {
    const url = `/errors/${code.toLowerCase()}`;
    const htmlPage = await t.app.inject({ url, headers: { accept: 'text/html,*/*;q=0.8' } });
    expect(htmlPage.statusCode).toBe(200);
    expect(htmlPage.body).toContain(`HTTP ${ERROR_CATALOG[code].status} ${ERROR_CATALOG[code].title}.`);
    const json = await t.app.inject({ url, headers: { accept: 'application/json' } });
    expect(json.headers['content-type']).toContain('application/json');
    expect(json.json()).toEqual({ type: `${TEST_BASE_URL}${url}`, code, ...ERROR_CATALOG[code] });
  });

  it('answers an unknown or upper-case code with the NOT_FOUND error object listing the codes', async () => {
    for (const code of ['teapot', 'NOT_FOUND', '%3Cscript%3E', 'x'.repeat(300)]) {
      const res = await t.app.inject({ url: `/errors/${code}` });
      expect(res.statusCode, code).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, code).toBeLessThan(500);
      expect(res.body).not.toContain('<script>');
    }
    const unknown = expectApiError(await t.app.inject({ url: '/errors/teapot' }), 'NOT_FOUND');
    expect(unknown.detail).toContain('validation_error, unauthorized');
  });

  it('escapes nothing it does not need to and links the other codes', async () => {
    const page = await t.app.inject({ url: '/errors/conflict' });
    expect(page.body).toContain('<code>Retry-After</code>');
    expect(page.body).toContain('<a href="rate_limited">RATE_LIMITED</a>');
  });
});

describe('prefersJson', () => {
  it.each([
    [undefined, false],
    ['*/*', false],
    ['application/json', true],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', false],
    ['application/json, text/html;q=0.5', true],
    ['text/html;q=0.5, application/*', true],
    ['application/json;q=0', false],
    ['application/problem+json, application/json;q=0.9, */*;q=0.1', true],
  ])('%s → %s', (accept, json) => {
    expect(prefersJson(accept)).toBe(json);
  });
});
