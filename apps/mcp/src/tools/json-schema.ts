import { z } from 'zod';

/** A JSON Schema object as sent in `tools/list`. */
export type JsonSchema = { [key: string]: unknown };

const LOCAL_REF = /^#\/\$defs\/(.+)$/;

/**
 * Converts a Zod schema to JSON Schema 2020-12 (the MCP default dialect, so `$schema` is left out).
 * A root that is only a `$ref` to one of its own `$defs` is inlined, so the root carries
 * `type: "object"` and `properties` as MCP requires of input and output schemas.
 */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return compact(inlineRootRef(json)) as JsonSchema;
}

function inlineRootRef(json: JsonSchema): JsonSchema {
  const { $ref: ref, $defs: defs, ...rest } = json as { $ref?: unknown; $defs?: Record<string, JsonSchema> };
  const name = typeof ref === 'string' ? LOCAL_REF.exec(ref)?.[1] : undefined;
  const target = name === undefined ? undefined : defs?.[name];
  if (!defs || name === undefined || target === undefined) return json;
  const { [name]: _inlined, ...others } = defs;
  const root: JsonSchema = { ...target, ...rest };
  // Keep the definition when the root refers to itself (recursive schemas).
  const stillUsed = JSON.stringify([root, others]).includes(`"#/$defs/${name}"`);
  const remaining = stillUsed ? defs : others;
  return Object.keys(remaining).length > 0 ? { ...root, $defs: remaining } : root;
}

/**
 * Drops what costs context without helping a model or a validator: a `pattern` beside a
 * `format` (Zod writes a 400-character regular expression next to `format: date-time`), and
 * `propertyNames: {type: string}` (always true in JSON).
 */
function compact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(compact);
  if (typeof value !== 'object' || value === null) return value;
  const out: JsonSchema = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === 'pattern' && 'format' in value) continue;
    if (key === 'propertyNames' && JSON.stringify(child) === '{"type":"string"}') continue;
    out[key] = compact(child);
  }
  return out;
}

/** The `properties` and `required` list of an object schema (empty for anything else). */
export function objectParts(json: JsonSchema): {
  properties: Record<string, JsonSchema>;
  required: string[];
} {
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = Array.isArray(json.required) ? (json.required as string[]) : [];
  return { properties, required };
}

/** Validation keywords that say nothing a model needs about a result it is given. */
const OUTPUT_NOISE = new Set([
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  'pattern',
  'default',
]);

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A result schema sized for a model's context: `$ref`s are inlined, objects nested deeper than
 * `maxDepth` levels become plain `{type: "object"}`, range and length limits are dropped and
 * `additionalProperties: false` is left out (a newer server may add fields; the result must still
 * validate). Every value that matches the full schema matches this one.
 */
export function outputView(json: JsonSchema, maxDepth: number, envelope = false): JsonSchema {
  const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
  const walk = (node: unknown, depth: number, seen: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((child) => walk(child, depth, seen));
    if (!isObject(node)) return node;
    const name = typeof node.$ref === 'string' ? LOCAL_REF.exec(node.$ref)?.[1] : undefined;
    if (name !== undefined) {
      const { $ref: _ref, ...rest } = node;
      if (seen.includes(name) || !defs[name]) return { type: 'object', ...rest };
      return walk({ ...defs[name], ...rest }, depth, [...seen, name]);
    }
    const isObjectSchema = node.type === 'object' || 'properties' in node;
    if (isObjectSchema && depth >= maxDepth) {
      return typeof node.description === 'string'
        ? { type: 'object', description: node.description }
        : { type: 'object' };
    }
    const out: JsonSchema = {};
    for (const [key, child] of Object.entries(node)) {
      if (key === '$defs' || OUTPUT_NOISE.has(key)) continue;
      if (key === 'additionalProperties' && (child === false || JSON.stringify(child) === '{}')) continue;
      if (key === 'description' && 'format' in node) continue;
      if (key === 'properties' && isObject(child)) {
        // A page of results is an envelope: its items count as the top level.
        const level = (p: string) => (envelope && depth === 0 && p === 'items' ? 0 : depth + 1);
        out[key] = Object.fromEntries(Object.entries(child).map(([p, s]) => [p, walk(s, level(p), seen)]));
      } else {
        out[key] = walk(child, depth, seen);
      }
    }
    return out;
  };
  return walk(json, 0, []) as JsonSchema;
}

function nullable(node: JsonSchema): JsonSchema {
  const variants = node.anyOf;
  if (!Array.isArray(variants) || variants.length !== 2) return node;
  const isNull = (v: unknown) => isObject(v) && v.type === 'null' && Object.keys(v).length === 1;
  const other = variants.find((v) => !isNull(v));
  if (!variants.some(isNull) || !isObject(other) || typeof other.type !== 'string') return node;
  const { anyOf: _anyOf, ...outer } = node;
  const merged: JsonSchema = { ...other, ...outer, type: [other.type, 'null'] };
  if (Array.isArray(other.enum)) merged.enum = [...other.enum, null];
  return merged;
}

/**
 * One way to say everything, for a model reading `tools/list`: local `$ref`s are replaced by their
 * definitions (a recursive one by `{}`, which accepts anything) and `$defs` dropped, and a value
 * that may be null is always `type: [T, "null"]` (never `anyOf` with a `{type: "null"}` branch).
 * Accepts exactly what the input accepted.
 */
export function normalizeSchema(json: JsonSchema): JsonSchema {
  const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
  const walk = (node: unknown, seen: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((child) => walk(child, seen));
    if (!isObject(node)) return node;
    const name = typeof node.$ref === 'string' ? LOCAL_REF.exec(node.$ref)?.[1] : undefined;
    if (name !== undefined) {
      const { $ref: _ref, ...rest } = node;
      if (seen.includes(name) || !defs[name]) return rest;
      return walk({ ...defs[name], ...rest }, [...seen, name]);
    }
    const out: JsonSchema = {};
    for (const [key, child] of Object.entries(node)) {
      if (key !== '$defs') out[key] = walk(child, seen);
    }
    return nullable(out);
  };
  return walk(json, []) as JsonSchema;
}
