import { MAX_BYTES_KEYWORD } from '@customer-api/contract';
import { type AppRoute, ContractNoBody, isAppRoute } from '@ts-rest/core';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';

// A route's body limit follows from the bounds its contract declares (decision 0213): the largest
// valid body as a JSON encoder may write it. Larger bodies are refused from their Content-Length,
// or as soon as the bytes read pass the limit, before anything is parsed.

type Schema = { [key: string]: unknown };

/** Bytes of one character of a string at worst: written as a `\uXXXX` escape. */
const BYTES_PER_CHARACTER = 6;
/**
 * Bytes on the wire per byte of a value measured as compact UTF-8 JSON (`x-maxBytes`): an encoder
 * that escapes non-ASCII characters (Python's default) writes 2- and 4-byte characters as 6 and 12.
 */
const WIRE_BYTES_PER_JSON_BYTE = 3;
/** The longest number JSON needs for a double, such as `-1.2345678901234567e-308`. */
const NUMBER_BYTES = 24;

/** Room around the whole body: leading and trailing whitespace, a byte-order mark. */
const BODY_MARGIN = 1024;

/** Whitespace a pretty-printer adds around one value at `depth`: a newline, 4 spaces a level, `: `. */
const whitespace = (depth: number) => 2 + 4 * depth;

/**
 * The largest body, in bytes, a valid request of `schema` takes, written compact or pretty-printed
 * (at most 4 spaces a level), escaping any character; `Infinity` where a part is unbounded.
 */
export function largestBody(schema: z.ZodType): number {
  const { json, resolve } = jsonSchemaOf(schema);
  return Math.ceil(sizeOf(json, 0, resolve));
}

function jsonSchemaOf(schema: z.ZodType) {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Schema;
  const defs = (json.$defs ?? {}) as Record<string, Schema>;
  const resolve = (ref: string) => defs[ref.replace('#/$defs/', '')] ?? {};
  return { json, resolve };
}

/**
 * The bounds of the body's fields in words, for the answer to a body over its limit (which is
 * refused unread, so no field can be named from the body itself): `title: at most 500
 * characters; tags: at most 50 items`.
 */
export function boundsInWords(schema: z.ZodType): string {
  const { json, resolve } = jsonSchemaOf(schema);
  const root = typeof json.$ref === 'string' ? resolve(json.$ref) : json;
  const words = Object.entries((root.properties ?? {}) as Record<string, Schema>).flatMap(([key, value]) => {
    const field = typeof value.$ref === 'string' ? { ...resolve(value.$ref), ...value } : value;
    if (typeof field.maxLength === 'number')
      return [`${key}: at most ${grouped(field.maxLength)} characters`];
    if (typeof field.maxItems === 'number') return [`${key}: at most ${grouped(field.maxItems)} items`];
    const bytes = field[MAX_BYTES_KEYWORD];
    if (typeof bytes === 'number') return [`${key}: at most ${grouped(bytes)} bytes of JSON`];
    return [];
  });
  const whole = root[MAX_BYTES_KEYWORD];
  if (typeof whole === 'number') words.push(`the whole body: at most ${grouped(whole)} bytes of JSON`);
  return words.join('; ');
}

const grouped = (n: number) => String(Math.trunc(n)).replace(/\B(?=(\d{3})+$)/g, ',');

function sizeOf(schema: Schema, depth: number, resolve: (ref: string) => Schema): number {
  const declared = schema[MAX_BYTES_KEYWORD];
  const structural = structuralSize(schema, depth, resolve);
  return typeof declared === 'number'
    ? Math.min(structural, declared * WIRE_BYTES_PER_JSON_BYTE)
    : structural;
}

function structuralSize(schema: Schema, depth: number, resolve: (ref: string) => Schema): number {
  const size = (s: unknown, d = depth) => sizeOf((s ?? {}) as Schema, d, resolve);
  if (typeof schema.$ref === 'string') {
    const target = size(resolve(schema.$ref));
    return typeof schema.maxLength === 'number' ? Math.min(target, stringSize(schema.maxLength)) : target;
  }
  const options = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (options) return Math.max(...options.map((option) => size(option)));
  if (Array.isArray(schema.enum)) return Math.max(...schema.enum.map(literalSize));
  if ('const' in schema) return literalSize(schema.const);
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return Math.max(...types.map((type) => typedSize(schema, type, depth, size)));
}

function typedSize(
  schema: Schema,
  type: unknown,
  depth: number,
  size: (schema: unknown, depth?: number) => number,
): number {
  switch (type) {
    case 'string':
      return typeof schema.maxLength === 'number' ? stringSize(schema.maxLength) : Infinity;
    case 'number':
    case 'integer':
      return NUMBER_BYTES;
    case 'boolean':
      return 'false'.length;
    case 'null':
      return 'null'.length;
    case 'array': {
      if (typeof schema.maxItems !== 'number') return Infinity;
      const item = size(schema.items, depth + 1) + whitespace(depth + 1) + 1;
      return 2 + schema.maxItems * item;
    }
    case 'object': {
      if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) return Infinity;
      const properties = Object.entries((schema.properties ?? {}) as Record<string, unknown>);
      const members = properties.map(
        ([key, value]) => literalSize(key) + 1 + size(value, depth + 1) + whitespace(depth + 1) + 1,
      );
      return 2 + members.reduce((sum, bytes) => sum + bytes, 0);
    }
    default:
      return Infinity;
  }
}

const stringSize = (maxLength: number) => 2 + BYTES_PER_CHARACTER * maxLength;

const literalSize = (value: unknown) =>
  typeof value === 'string' ? stringSize(value.length) : JSON.stringify(value ?? null).length;

/**
 * The body limit of `route`: its largest valid body with {@link BODY_MARGIN} around it, or
 * `ceiling` when that is more (or unbounded). A route without a body gets the margin alone.
 */
export function bodyLimitOf(route: AppRoute, ceiling: number): number {
  if (!('body' in route) || route.body === ContractNoBody) return Math.min(ceiling, BODY_MARGIN);
  if (!(route.body instanceof z.ZodType)) return ceiling;
  return Math.min(ceiling, largestBody(route.body) + BODY_MARGIN);
}

/**
 * Gives every contract route registered in `scope` after this call the body limit its bounds
 * imply (Fastify's per-route `bodyLimit`), never more than `ceiling`.
 */
export function registerBodyLimits(scope: FastifyInstance, ceiling: number): void {
  scope.addHook('onRoute', (options) => {
    const config = options.config as BodyLimitConfig | undefined;
    const route = config?.tsRestRoute;
    if (!config || !route || !isAppRoute(route)) return;
    options.bodyLimit = bodyLimitOf(route, options.bodyLimit ?? ceiling);
    if ('body' in route && route.body instanceof z.ZodType) config.bodyBounds = boundsInWords(route.body);
  });
}

/** The route configuration this module reads (`tsRestRoute`, from ts-rest) and writes. */
export interface BodyLimitConfig {
  tsRestRoute?: AppRoute;
  /** The body's field bounds in words (see {@link boundsInWords}). */
  bodyBounds?: string;
}
