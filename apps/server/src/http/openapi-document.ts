import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';

const openApiDocument = createRequire(import.meta.url)('@customer-api/contract/openapi.json') as object;

/** `GET /openapi.json`: the contract's committed document, naming this server. */
export function registerOpenApiDocument(app: FastifyInstance, baseUrl: string): void {
  // The committed document names a `{baseUrl}` variable; served, it names this server.
  const servedDocument = {
    ...openApiDocument,
    servers: [{ url: baseUrl, description: 'This server.' }],
  };
  app.get('/openapi.json', async () => servedDocument);
}
