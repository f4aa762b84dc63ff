// (a) A bare Fastify 5 route: the same SQL and JSON as ours, without ts-rest, validation or hooks.
import Fastify from 'fastify';
import { env, onTerm, openPages } from './common.js';

const { port, databaseUrl } = env();
const pages = await openPages(databaseUrl);
const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ status: 'ok' }));
app.get<{ Querystring: { limit?: string } }>('/v0/pages', async (request, reply) => {
  const apiKey = request.headers['x-api-key'];
  const tenantId = await pages.tenantOf(typeof apiKey === 'string' ? apiKey : undefined);
  if (!tenantId) return reply.status(401).send({ code: 'UNAUTHORIZED' });
  const limit = Math.min(100, Math.max(1, Number(request.query.limit ?? 20) || 20));
  return pages.listPages(tenantId, limit);
});
await app.listen({ host: '127.0.0.1', port });
onTerm(async () => {
  await app.close();
  await pages.db.end();
});
