import { createHash } from 'node:crypto';
import {
  contract,
  etagMatches,
  OPERATION_NAMES,
  type OperationName,
  operationMeta,
  TAGGED_RESOURCES,
  type TaggedResource,
  UNTAGGED_FIELDS,
} from '@customer-api/contract';
import type { AppRoute } from '@ts-rest/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Handle } from '../db/port.js';
import { PreconditionFailedError } from '../lib/errors.js';
import { holdingJsonText, holdsJsonText } from '../lib/json-text.js';
import type { AppDeps, PathParams, TaggedAccess } from '../modules/types.js';
import { requireAuth } from './auth.js';
import { jsonFragments } from './json-stream.js';

/** A handler as {@link withConditions} wraps it. */
type Handler = (args: {
  request: FastifyRequest;
  reply: FastifyReply;
  params?: unknown;
  db: Handle;
}) => Promise<{ status: number; body: unknown }>;

/**
 * The top-level fields each resource's tag covers, in the order of the schema that answers it (a
 * GET of it, else the create that answers with it), less the fields that change on every answer
 * (`UNTAGGED_FIELDS`): an answer with more (a subscription with its new secret) is tagged as the
 * resource itself, so every operation sends the same tag for the same state.
 */
const FIELDS = {} as Record<TaggedResource, readonly string[]>;
for (const resource of TAGGED_RESOURCES) {
  const routes = OPERATION_NAMES.filter((name) => operationMeta(name).resource === resource).map(
    (name) => contract[name] as AppRoute,
  );
  const answer = routes.find((r) => r.method === 'GET') ?? routes.find((r) => r.method === 'POST');
  const responses = (answer?.responses ?? {}) as Record<number, unknown>;
  const schema = responses[200] ?? responses[201];
  const shape = schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
  const untagged: readonly string[] = UNTAGGED_FIELDS[resource] ?? [];
  FIELDS[resource] = shape.filter((field) => !untagged.includes(field));
}

/**
 * The strong entity tag of `body`, a representation of `resource`: a SHA-256 of its fields'
 * JSON text as the server writes it (stored JSON text as stored), 128 bits in base64url.
 */
export function etagOf(resource: TaggedResource, body: unknown): string {
  const hash = createHash('sha256');
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const source = body as Record<string, unknown>;
    const fields: Record<string, unknown> = {};
    for (const field of FIELDS[resource]) if (field in source) fields[field] = source[field];
    for (const fragment of jsonFragments(holdsJsonText(source) ? holdingJsonText(fields) : fields, 2))
      hash.update(fragment);
  } else {
    for (const fragment of jsonFragments(body, 2)) hash.update(fragment);
  }
  return `"${hash.digest('base64url').slice(0, 22)}"`;
}

/**
 * `handler` of operation `name` with conditional requests (RFC 9110 §13, DESIGN's fifth round):
 * - a GET of a resource sends its `ETag`, and answers 304 with no body when `If-None-Match` names it;
 * - a write that takes `If-Match` runs, with it, in a transaction that first locks the resource
 *   and compares the tag of what it holds then: another tag is 412 PRECONDITION_FAILED and nothing
 *   is written; a missing resource is 404 as without the header;
 * - a 2xx answer with the resource (`sendsEtag`) carries its new `ETag`.
 * It runs inside the idempotency guard: a replayed answer is sent as kept, without a tag.
 */
export function withConditions(
  name: OperationName,
  handler: Handler,
  access: TaggedAccess | undefined,
  deps: AppDeps,
): Handler {
  const meta = operationMeta(name);
  const { resource } = meta;
  if (!resource) return handler;
  if (meta.ifMatch && !access)
    throw new Error(`${name} takes If-Match, but no module owns the ${resource} resource`);
  if ((contract[name] as AppRoute).method === 'GET')
    return async (args) => {
      const result = await handler(args);
      if (result.status !== 200) return result;
      const etag = etagOf(resource, result.body);
      args.reply.header('etag', etag);
      const ifNoneMatch = args.request.headers['if-none-match'];
      if (typeof ifNoneMatch !== 'string' || !etagMatches(ifNoneMatch, etag, 'weak')) return result;
      return { status: 304, body: undefined };
    };
  return async (args) => {
    const ifMatch = meta.ifMatch ? args.request.headers['if-match'] : undefined;
    const result =
      typeof ifMatch === 'string' && access
        ? await args.db.transaction(async (tx) => {
            const tenantId = requireAuth(args.request).tenantId;
            const params = (args.params ?? {}) as PathParams;
            await access.lock({ ...deps, db: tx }, tenantId, params);
            const current = etagOf(resource, await access.read({ ...deps, db: tx }, tenantId, params));
            if (!etagMatches(ifMatch, current, 'strong'))
              throw new PreconditionFailedError(
                `The ${resource} changed since it was read: If-Match does not name its current ETag. Read it again (its ETag comes with it), then decide whether the change still applies.`,
              );
            return handler({ ...args, db: tx });
          })
        : await handler(args);
    if (meta.sendsEtag && result.status >= 200 && result.status < 300)
      args.reply.header('etag', etagOf(resource, result.body));
    return result;
  };
}
