// (c) Peer stack: @ts-rest/express on Express 5 serving the contract's own `listPages` route
// (request validation on, response validation off, as in production).
import { contract } from '@customer-api/contract';
import { initContract } from '@ts-rest/core';
import { createExpressEndpoints, initServer } from '@ts-rest/express';
import express from 'express';
import { env, onTerm, openPages } from './common.js';

const { port, databaseUrl } = env();
const pages = await openPages(databaseUrl);
const app = express();
app.disable('x-powered-by');
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});
const c = initContract();
// The contract's route, with the bare 401 this server answers without a key (never during the load).
const api = c.router({
  listPages: {
    ...contract.listPages,
    responses: { 200: contract.listPages.responses[200], 401: c.type<{ code: 'UNAUTHORIZED' }>() },
  },
});
const s = initServer();
const router = s.router(api, {
  listPages: async ({ query, req }) => {
    const tenantId = await pages.tenantOf(req.header('x-api-key'));
    if (!tenantId) return { status: 401, body: { code: 'UNAUTHORIZED' } };
    return { status: 200, body: await pages.listPages(tenantId, query.limit) };
  },
});
createExpressEndpoints(api, router, app, { jsonQuery: false, responseValidation: false });
const server = app.listen(port, '127.0.0.1');
onTerm(async () => {
  await new Promise((resolve) => server.close(() => resolve(undefined)));
  await pages.db.end();
});
