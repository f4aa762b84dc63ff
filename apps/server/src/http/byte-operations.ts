import { contract, type OperationName, operationMeta } from '@customer-api/contract';
import { RequestValidationError } from '@ts-rest/fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodError, z } from 'zod';
import type { Handle } from '../db/port.js';
import { fromRequestValidation } from './errors.js';
import { type TenantHandles, type TenantOf, withTenantDb } from './tenant-db.js';

/** What the handler of a byte operation receives: its parsed path and query, and its tenant's handle. */
export interface ByteArgs {
  request: FastifyRequest;
  /** For the headers of a byte answer (Content-Type, ETag, Content-Range…). */
  reply: FastifyReply;
  params: Record<string, string>;
  query: Record<string, string>;
  db: Handle;
  tenantId: string;
}

/** The handler of a byte operation: the status, and the body sent as it is (a stream, an object as JSON, or none). */
export type ByteHandler = (args: ByteArgs) => Promise<{ status: number; body?: unknown }>;

/** The route of a byte operation as the contract declares it. */
interface ByteRoute {
  method: 'GET' | 'PUT';
  path: string;
  pathParams?: z.ZodType;
  query?: z.ZodType;
}

function parsed(schema: z.ZodType | undefined, value: unknown): { data?: unknown; error?: ZodError } {
  if (!schema) return { data: value };
  const result = schema.safeParse(value);
  return result.success ? { data: result.data } : { error: result.error };
}

/**
 * Registers on `scope` the contract operation `name`, one whose body or answer is raw bytes
 * (metadata `bytes`), which @ts-rest/fastify does not serve as such: it would read the body as
 * JSON and set each answer's Content-Type from the contract. Its method and path come from the
 * contract, its path and query are checked by the contract's schemas (400 VALIDATION_ERROR, as
 * every route), and `handler` runs on the tenant's handle like every operation's
 * ({@link withTenantDb}: an upload a write, a download a read), the tenant being the API key's
 * unless `tenantOf` finds it in the request.
 */
export function registerByteOperation(
  scope: FastifyInstance,
  name: OperationName,
  handler: ByteHandler,
  deps: { handles: TenantHandles; tenantOf?: TenantOf },
): void {
  const route = contract[name] as unknown as ByteRoute;
  if (!operationMeta(name).bytes) throw new Error(`${name} is a JSON operation: register it with the router`);
  const run = withTenantDb(
    async ({ request, reply, db, tenantId }) => {
      const params = parsed(route.pathParams, request.params);
      const query = parsed(route.query, request.query);
      if (params.error || query.error)
        throw fromRequestValidation(
          new RequestValidationError(params.error ?? null, null, query.error ?? null, null),
        );
      const result = await handler({
        request,
        reply: reply as FastifyReply,
        params: params.data as ByteArgs['params'],
        query: query.data as ByteArgs['query'],
        db: db as Handle,
        tenantId: tenantId as string,
      });
      return { status: result.status, body: result.body };
    },
    deps.handles,
    route.method === 'GET' ? 'read' : 'write',
    deps.tenantOf,
  );
  scope.route({
    method: route.method,
    url: route.path,
    handler: async (request, reply) => {
      const { status, body } = await run({ request, reply });
      return reply.status(status).send(body);
    },
  });
}
