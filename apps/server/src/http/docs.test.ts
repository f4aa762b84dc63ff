import { describe, expect, it } from 'vitest';
import { expectApiError } from '../test/http-cases.js';
import { useTestApp } from '../test/test-app.js';

const t = useTestApp();

describe('GET /docs (reference page served from swagger-ui-dist)', () => {
  it('serves an offline page: every script and style comes from this server', async () => {
    const res = await t.app.inject({ url: '/docs' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.body).not.toMatch(/https?:\/\//);
    const refs = [...res.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(refs.length).toBeGreaterThanOrEqual(4);
    for (const ref of refs) {
      const asset = await t.app.inject({ url: new URL(ref, 'http://api.test/docs').pathname });
      expect(asset.statusCode, ref).toBe(200);
    }
  });

  it('serves assets with their content types; versioned assets are cached for good', async () => {
    const page = (await t.app.inject({ url: '/docs' })).body;
    const bundle = /src="(docs\/assets\/[^"]+\/swagger-ui-bundle\.js)"/.exec(page)?.[1];
    const css = /href="(docs\/assets\/[^"]+\/swagger-ui\.css)"/.exec(page)?.[1];
    const js = await t.app.inject({ url: `/${bundle}` });
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.body).toContain('SwaggerUIBundle');
    const style = await t.app.inject({ url: `/${css}` });
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8');
    const init = await t.app.inject({ url: '/docs/init.js' });
    expect(init.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(init.headers['cache-control']).toBe('no-cache');
    expect(init.body).toContain('openapi.json');
  });

  it('serves nothing else from the package directory', async () => {
    const version = /docs\/assets\/([^/]+)\//.exec((await t.app.inject({ url: '/docs' })).body)?.[1];
    for (const url of [
      `/docs/assets/${version}/package.json`,
      `/docs/assets/${version}/..%2Fpackage.json`,
      `/docs/assets/${version}/index.html`,
      '/docs/assets/0.0.1/swagger-ui-bundle.js',
    ]) {
      expectApiError(await t.app.inject({ url }), 'NOT_FOUND');
    }
  });
});
