import { ContractNoBody } from '@ts-rest/core';
import { z } from 'zod';
import { markDeprecated } from './common/deprecation.js';
import { ERROR_CATALOG } from './common/errors.js';
import { type OperationMeta, requiredScope } from './common/operations.js';
import { conditionalParameters, etagHeader } from './openapi-conditional.js';
import { bytesRequestBody, bytesResponses, RATE_LIMIT_HEADER_NAMES } from './openapi-content.js';
import { toSchema } from './openapi-schemas.js';
import type { JsonObject, Route } from './openapi-types.js';

const STATUS_DESCRIPTIONS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  304: 'Not Modified: the resource still has the tag If-None-Match named.',
  ...Object.fromEntries(Object.values(ERROR_CATALOG).map((e) => [e.status, e.title])),
};

/**
 * The operation object of one contract route: its parameters, request body, responses, the scope
 * it needs and its deprecation. `inputOnly` names the components with a separate request form.
 */
export function operation(name: string, route: Route, inputOnly: Set<string>): JsonObject {
  const meta = route.metadata as OperationMeta;
  const op: JsonObject = {
    operationId: name,
    summary: route.summary ?? name,
    tags: [meta.group],
    parameters: parameters(route, inputOnly),
    responses: meta.bytes
      ? bytesResponses(route, meta.bytes, (schema) => toSchema(schema, 'output', inputOnly))
      : responses(route, inputOnly),
  };
  if (route.description) op.description = route.description;
  // A download's signed link is its credential: it takes no key.
  op.security = meta.bytes === 'download' ? [] : [{ apiKey: [requiredScope(route.method)] }];
  if (meta.deprecated) markDeprecated(op, meta.deprecated);
  if (meta.bytes === 'upload') op.requestBody = bytesRequestBody();
  else if (route.method !== 'GET' && 'body' in route && route.body !== ContractNoBody) {
    op.requestBody = {
      required: !acceptsNoBody(route),
      content: { 'application/json': { schema: toSchema(route.body, 'input', inputOnly) } },
    };
  }
  return op;
}

function objectShape(schema: unknown): Record<string, z.ZodType> {
  return schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : {};
}

/** A POST whose body may be `{}` may also send no body at all: the server reads it as `{}`. */
function acceptsNoBody(route: Route): boolean {
  return route.method === 'POST' && 'body' in route && (route.body as z.ZodType).safeParse({}).success;
}

/** POST and PATCH take `Idempotency-Key`; other methods ignore it. */
function isRetrySafeWrite(route: Route): boolean {
  return route.method === 'POST' || route.method === 'PATCH';
}

/** POST and PATCH whose first response is kept for their `Idempotency-Key` and replayed. */
const keepsResponse = (route: Route) =>
  isRetrySafeWrite(route) && !(route.metadata as OperationMeta).responseNotKept;

function parameters(route: Route, inputOnly: Set<string>): JsonObject[] {
  const params: JsonObject[] = [];
  if (keepsResponse(route)) params.push({ $ref: '#/components/parameters/IdempotencyKey' });
  else if (isRetrySafeWrite(route)) params.push({ $ref: '#/components/parameters/IdempotencyKeyNotKept' });
  // The contract describes each parameter on its schema; the description moves to the parameter.
  const described = (name: string, where: 'path' | 'query', schema: z.ZodType): JsonObject => {
    const { description, ...rest } = toSchema(schema, 'input', inputOnly);
    const required = where === 'path' || !schema.safeParse(undefined).success;
    const param: JsonObject = { name, in: where, required, schema: rest };
    if (typeof description === 'string') param.description = description;
    return param;
  };
  params.push(...conditionalParameters(route.method, route.metadata as OperationMeta));
  for (const [param, schema] of Object.entries(objectShape(route.pathParams)))
    params.push(described(param, 'path', schema));
  for (const [query, schema] of Object.entries(objectShape(route.query)))
    params.push(described(query, 'query', schema));
  return params;
}

/**
 * Every declared response, plus 400 and 409 on POST and PATCH where the contract has none: a
 * malformed `Idempotency-Key` and a reused or still running one can happen on any of them (no 409
 * where the key is not kept).
 */
function responses(route: Route, inputOnly: Set<string>): JsonObject {
  const out: JsonObject = {};
  const declared: Record<string, unknown> = { ...route.responses };
  const errorSchema = declared['400'] ?? declared['404'];
  if (isRetrySafeWrite(route) && errorSchema) {
    for (const status of keepsResponse(route) ? ['400', '409'] : ['400']) declared[status] ??= errorSchema;
  }
  for (const [status, schema] of Object.entries(declared)) {
    const code = Number(status);
    const headers: JsonObject = { 'x-request-id': { $ref: '#/components/headers/RequestId' } };
    for (const name of RATE_LIMIT_HEADER_NAMES)
      headers[name] = { $ref: `#/components/headers/${name.replaceAll('-', '')}` };
    if (code === 429 || code === 503) headers['Retry-After'] = { $ref: '#/components/headers/RetryAfter' };
    if (code !== 401) headers['X-OAuth-Scopes'] = { $ref: '#/components/headers/XOAuthScopes' };
    Object.assign(headers, etagHeader(code, route.metadata as OperationMeta));
    if (keepsResponse(route)) {
      headers['Idempotent-Replayed'] = { $ref: '#/components/headers/IdempotentReplayed' };
      if (code === 409) headers['Retry-After'] = { $ref: '#/components/headers/RetryAfterRunning' };
    }
    const description = STATUS_DESCRIPTIONS[code] ?? 'Response';
    out[status] =
      code === 304
        ? { description, headers }
        : {
            description,
            headers,
            content: { 'application/json': { schema: toSchema(schema, 'output', inputOnly) } },
          };
  }
  return out;
}
