import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { NotFoundError } from '../lib/errors.js';

const require = createRequire(import.meta.url);
const swaggerDir = dirname(require.resolve('swagger-ui-dist/package.json'));
const swaggerVersion: string = require('swagger-ui-dist/package.json').version;

/**
 * Files of `swagger-ui-dist` the page may load, with their content types. Only these are served:
 * the route never maps a request path onto the file system.
 */
const ASSETS: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-bundle.js.map': 'application/json; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui.css.map': 'application/json; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/** Asset URLs carry the package version, so a cached copy can never be stale. */
// Relative to the page (`/docs`), so a path prefix in front of the server keeps working.
const ASSET_BASE = `docs/assets/${swaggerVersion}`;
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The page and its start-up script change with the server: revalidate every time. */
const REVALIDATE = 'no-cache';
/**
 * Everything the page loads comes from this server; Swagger UI styles elements inline, and
 * try-it-out calls go to this server only (`connect-src 'self'`).
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Customer API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${ASSET_BASE}/swagger-ui.css">
<link rel="icon" type="image/png" href="${ASSET_BASE}/favicon-32x32.png" sizes="32x32">
</head>
<body>
<noscript><p>The reference page needs JavaScript; the <a href="openapi.json">OpenAPI 3.1 document</a> has everything too.</p></noscript>
<div id="swagger-ui"></div>
<script src="${ASSET_BASE}/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`;

/**
 * Start-up script. The served document lists the default local address as its server; the page
 * replaces it with the address it was loaded from, so that try-it-out calls this very server
 * whatever its host, port or path prefix. It also drops the `cursor` parameters' examples, which
 * try-it-out would send: a cursor is bound to the tenant and listing that received it, so the
 * document's example is refused by every server, and a first "Execute" must list the first page.
 */
const INIT_SCRIPT = `'use strict';
(async function () {
  const here = new URL('.', window.location.href).href.replace(/\\/$/, '');
  const response = await fetch(here + '/openapi.json', { headers: { accept: 'application/json' } });
  const spec = await response.json();
  spec.servers = [{ url: here, description: 'this server' }];
  for (const item of Object.values(spec.paths || {})) {
    for (const operation of Object.values(item || {})) {
      for (const parameter of (operation && operation.parameters) || []) {
        if (parameter.name === 'cursor') {
          delete parameter.example;
          delete parameter.examples;
        }
      }
    }
  }
  window.ui = SwaggerUIBundle({
    spec: spec,
    dom_id: '#swagger-ui',
    deepLinking: true,
    persistAuthorization: false,
    displayRequestDuration: true,
    filter: true,
    defaultModelsExpandDepth: 0,
    layout: 'BaseLayout',
  });
})();
`;

const cache = new Map<string, Buffer>();

async function asset(name: string): Promise<Buffer> {
  let body = cache.get(name);
  if (!body) {
    body = await readFile(join(swaggerDir, name));
    cache.set(name, body);
  }
  return body;
}

function sendText(reply: FastifyReply, type: string, body: string): FastifyReply {
  return reply.type(type).header('cache-control', REVALIDATE).send(body);
}

/**
 * `GET /docs`: the API reference page (Swagger UI from the installed `swagger-ui-dist`, no
 * CDN) rendering `/openapi.json`, with the `x-api-key` input and try-it-out against this server.
 */
export function registerDocs(app: FastifyInstance): void {
  app.get('/docs', async (_request, reply) =>
    sendText(reply.header('content-security-policy', CSP), 'text/html; charset=utf-8', PAGE),
  );
  app.get('/docs/init.js', async (_request, reply) =>
    sendText(reply, 'text/javascript; charset=utf-8', INIT_SCRIPT),
  );
  app.get<{ Params: { version: string; file: string } }>(
    '/docs/assets/:version/:file',
    async (request, reply) => {
      const { version, file } = request.params;
      const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
      if (version !== swaggerVersion || !type) {
        throw new NotFoundError(`No documentation asset ${version}/${file}.`);
      }
      return reply
        .type(type)
        .header('cache-control', IMMUTABLE)
        .send(await asset(file));
    },
  );
}
