// (c) Peer stack: Hono + @hono/zod-openapi, idiomatic for this one endpoint, with the contract's
// own Zod schemas for the query (validated) and the response (documented, not validated).

import { PageSchema, PaginationQuerySchema, paginated } from '@customer-api/contract';
import { serve } from '@hono/node-server';
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { env, onTerm, openPages } from './common.js';

const { port, databaseUrl } = env();
const pages = await openPages(databaseUrl);
const app = new OpenAPIHono();
app.get('/healthz', (c) => c.json({ status: 'ok' }));
const route = createRoute({
  method: 'get',
  path: '/v0/pages',
  request: { query: PaginationQuerySchema },
  responses: {
    200: { content: { 'application/json': { schema: paginated(PageSchema) } }, description: 'Pages' },
    401: {
      content: { 'application/json': { schema: z.object({ code: z.string() }) } },
      description: 'No tenant for the key',
    },
  },
});
app.openapi(route, async (c) => {
  const tenantId = await pages.tenantOf(c.req.header('x-api-key'));
  if (!tenantId) return c.json({ code: 'UNAUTHORIZED' }, 401);
  const { limit } = c.req.valid('query');
  return c.json(await pages.listPages(tenantId, limit), 200);
});
const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });
onTerm(async () => {
  await new Promise((resolve) => server.close(() => resolve(undefined)));
  await pages.db.end();
});
