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
 * validate), and `oneOf` becomes `anyOf`. Every value that matches the full schema matches this one.
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
      if (key === 'oneOf' && Array.isArray(child)) {
        // Branches cut to `{type: "object"}` all match one value: `oneOf` would refuse every value.
        out.anyOf = walk(child, depth, seen);
      } else if (key === 'properties' && isObject(child)) {
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

/** Keywords whose values are named schemas, not a schema. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords whose values are data (JSON values), never schemas. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'required']);

/** Keywords that describe a value rather than constrain it: they stay outside `anyOf` branches. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples']);

/** Every JSON value, each branch with a single `type`: what an unconstrained `{}` accepts. */
const ANY_VALUE: readonly JsonSchema[] = ['object', 'array', 'string', 'number', 'boolean', 'null'].map(
  (type) => ({ type }),
);

/**
 * A nullable value as `anyOf` of the value and `{type: "null"}`, each branch with one `type`
 * (the portable spelling: single-`type` dialects such as Gemini's reject `type` arrays), and an
 * unconstrained `{}` as the explicit list of JSON types.
 */
function nullable(node: JsonSchema): JsonSchema {
  const keys = Object.keys(node);
  if (keys.every((key) => ANNOTATIONS.has(key))) return { ...node, anyOf: ANY_VALUE.map((v) => ({ ...v })) };
  const types = node.type;
  if (Array.isArray(types) && types.length === 2 && types.includes('null')) {
    const outer: JsonSchema = {};
    const branch: JsonSchema = { type: types.find((t) => t !== 'null') };
    for (const [key, value] of Object.entries(node)) {
      if (key === 'type') continue;
      if (ANNOTATIONS.has(key)) outer[key] = value;
      else branch[key] = key === 'enum' && Array.isArray(value) ? value.filter((v) => v !== null) : value;
    }
    return { ...outer, anyOf: [branch, { type: 'null' }] };
  }
  const variants = node.anyOf;
  const isNull = (v: unknown) => isObject(v) && v.type === 'null';
  if (Array.isArray(variants) && variants.length === 2 && isNull(variants[0])) {
    return { ...node, anyOf: [variants[1], variants[0]] };
  }
  return node;
}

/**
 * One way to say everything, for a model reading `tools/list`: local `$ref`s are replaced by their
 * definitions (a recursive one by any JSON value) and `$defs` dropped, a value that may be null
 * is always `anyOf: [{type: T, …}, {type: "null"}]` (never a `type` array), and every schema has
 * a validation keyword.
 * Accepts exactly what the input accepted.
 */
export function normalizeSchema(json: JsonSchema): JsonSchema {
  const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
  // `schema`: the node is a schema (not a map of named schemas such as `properties`).
  const walk = (node: unknown, seen: readonly string[], schema = true): unknown => {
    if (Array.isArray(node)) return node.map((child) => walk(child, seen));
    if (!isObject(node)) return node;
    const name = schema && typeof node.$ref === 'string' ? LOCAL_REF.exec(node.$ref)?.[1] : undefined;
    if (name !== undefined) {
      const { $ref: _ref, ...rest } = node;
      if (seen.includes(name) || !defs[name]) return walk(rest, seen);
      return walk({ ...defs[name], ...rest }, [...seen, name]);
    }
    const out: JsonSchema = {};
    for (const [key, child] of Object.entries(node)) {
      if (schema && key === '$defs') continue;
      out[key] =
        schema && DATA_KEYWORDS.has(key) ? child : walk(child, seen, !(schema && SCHEMA_MAPS.has(key)));
    }
    return schema ? nullable(out) : out;
  };
  return walk(json, []) as JsonSchema;
}

/**
 * Paths of the properties of an input schema, at any depth (objects, array items, `anyOf` and
 * `oneOf` branches), that have no description: the contract describes every field it takes.
 */
export function undescribedProperties(schema: JsonSchema): string[] {
  const missing: string[] = [];
  const visit = (node: JsonSchema, path: string): void => {
    for (const [name, child] of Object.entries((node.properties ?? {}) as Record<string, JsonSchema>)) {
      const childPath = path ? `${path}.${name}` : name;
      if (typeof child.description !== 'string' || child.description === '') missing.push(childPath);
      visit(child, childPath);
    }
    if (isObject(node.items)) visit(node.items, path);
    for (const key of ['anyOf', 'oneOf'] as const) {
      const variants = node[key];
      if (Array.isArray(variants)) for (const v of variants) if (isObject(v)) visit(v, path);
    }
  };
  visit(schema, '');
  return [...new Set(missing)];
}
