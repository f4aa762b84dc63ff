import { z } from 'zod';
import type { Io, JsonObject } from './openapi-types.js';

/** Where the document's component schemas are referenced from. */
export const COMPONENT_PREFIX = '#/components/schemas/';

/**
 * Converts every schema registered with an `id` into a component. Schemas whose request (input)
 * form differs from their response (output) form (defaults, transforms) get a second `<id>Input`
 * component, and request schemas reference those.
 */
export function buildComponents() {
  const convert = (io: Io, rename: (id: string) => string) =>
    z.toJSONSchema(z.globalRegistry, {
      io,
      unrepresentable: 'any',
      uri: (id) => COMPONENT_PREFIX + rename(id),
    }).schemas as Record<string, JsonObject>;
  const output = convert('output', (id) => id);
  const inputOnly = new Set<string>();
  let input: Record<string, JsonObject> = {};
  for (let size = -1; size !== inputOnly.size; ) {
    size = inputOnly.size;
    input = convert('input', (id) => (inputOnly.has(id) ? `${id}Input` : id));
    for (const id of Object.keys(input)) {
      if (JSON.stringify(input[id]) !== JSON.stringify(output[id])) inputOnly.add(id);
    }
  }
  const schemas: Record<string, JsonObject> = {};
  for (const [id, schema] of Object.entries(output)) schemas[id] = clean(schema);
  for (const id of inputOnly) schemas[`${id}Input`] = clean(input[id] ?? {});
  return { schemas, inputOnly };
}

function clean(schema: JsonObject): JsonObject {
  const { $schema: _schema, $id: _id, id: _ignored, ...rest } = schema;
  return rest;
}

/** Converts one route-level schema; nested component schemas become `$ref`s to the components. */
export function toSchema(schema: unknown, io: Io, inputOnly: Set<string>): JsonObject {
  const id = z.globalRegistry.get(schema as z.ZodType)?.id;
  const refName = (name: string) => (io === 'input' && inputOnly.has(name) ? `${name}Input` : name);
  if (typeof id === 'string') return { $ref: COMPONENT_PREFIX + refName(id) };
  const json = z.toJSONSchema(schema as z.ZodType, { io, unrepresentable: 'any' }) as JsonObject;
  const { $defs: _defs, ...rest } = clean(json);
  const text = JSON.stringify(rest).replace(
    /"#\/\$defs\/([^"]+)"/g,
    (_match, name: string) => `"${COMPONENT_PREFIX}${refName(name)}"`,
  );
  return JSON.parse(text) as JsonObject;
}

/** Names of the components referenced, directly or through other components, from `root`. */
export function reachable(root: JsonObject, schemas: Record<string, JsonObject>): Set<string> {
  const used = new Set<string>();
  const pending = [JSON.stringify(root)];
  for (let text = pending.pop(); text !== undefined; text = pending.pop()) {
    for (const match of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      const id = match[1] as string;
      if (!used.has(id)) {
        used.add(id);
        pending.push(JSON.stringify(schemas[id] ?? {}));
      }
    }
  }
  return used;
}

/** Gives an `<id>Input` component the plain name when the output form is not used anywhere. */
export function simplifyInputNames(doc: JsonObject): JsonObject {
  const schemas = (doc.components as JsonObject).schemas as JsonObject;
  let text = JSON.stringify(doc);
  for (const name of Object.keys(schemas)) {
    const plain = name.slice(0, -'Input'.length);
    if (name.endsWith('Input') && !(plain in schemas)) {
      text = text.replaceAll(`"${COMPONENT_PREFIX}${name}"`, `"${COMPONENT_PREFIX}${plain}"`);
      text = text.replace(`"${name}":`, `"${plain}":`);
    }
  }
  return JSON.parse(text) as JsonObject;
}
