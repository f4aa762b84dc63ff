import type { JsonSchema } from './json-schema.js';
import type { JsonArgument } from './types.js';

// Input schemas in the subset that OpenAI's strict function calling, Gemini's function
// declarations and LangChain's MCP adapters all accept (docs/decisions/0216): no `oneOf`, `const`,
// `default` or free-form objects, string formats only where every provider knows them. Each
// rewrite keeps the argument's meaning; the contract's Zod schemas still validate every call.

/** String formats every provider accepts; the others are said in the description instead. */
const PORTABLE_FORMATS = new Set(['date-time']);

const FORMAT_TEXT: Readonly<Record<string, string>> = {
  uri: 'An absolute URL (https://…).',
  url: 'An absolute URL (https://…).',
  email: 'An email address.',
};

/** Keywords that describe rather than constrain, and that some provider refuses. */
const DROPPED = new Set(['default', 'examples', 'title', '$schema', 'propertyNames']);

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Any JSON value: the `anyOf` of every JSON type that normalizeSchema writes for `{}`. */
function isAnyValue(node: JsonSchema): boolean {
  const variants = node.anyOf;
  if (!Array.isArray(variants) || variants.length !== 6) return false;
  const types = variants.map((v) => (isObject(v) ? v.type : undefined)).sort();
  return JSON.stringify(types) === JSON.stringify(['array', 'boolean', 'null', 'number', 'object', 'string']);
}

/** An object whose keys are free and whose values are any JSON: `payload`, a tool call's `arguments`. */
function isFreeObject(node: JsonSchema): boolean {
  if (node.type !== 'object' || isObject(node.properties)) return false;
  const extra = node.additionalProperties;
  return extra === undefined || extra === true || (isObject(extra) && isAnyValue(extra));
}

function appendText(description: unknown, text: string): string {
  const base = typeof description === 'string' ? description.trim() : '';
  if (!base) return text;
  return `${base}${/[.!?)]$/.test(base) ? '' : '.'} ${text}`;
}

/** A free-form value as JSON text: the one shape every provider accepts for arbitrary JSON. */
function asJsonText(node: JsonSchema, object: boolean): JsonSchema {
  const example = object ? '{"source":"crm"}' : '{"ok":true}, "done" or null';
  const kind = object ? 'a JSON object' : 'any JSON value';
  return {
    type: 'string',
    description: appendText(node.description, `Give ${kind} as JSON text, e.g. ${example}.`),
  };
}

/**
 * The discriminator of a union of objects: a property every branch has with a single `const`
 * value (`type: "text"`, `type: "error"`, …). `undefined` when the union has none.
 */
function discriminatorOf(branches: JsonSchema[]): string | undefined {
  const first = branches[0]?.properties;
  if (!isObject(first)) return undefined;
  return Object.keys(first).find((key) =>
    branches.every((b) => {
      const property = (b.properties as Record<string, JsonSchema> | undefined)?.[key];
      return isObject(property) && property.const !== undefined;
    }),
  );
}

/**
 * A discriminated union of objects as one object: the discriminator becomes an `enum`, every
 * other property optional, and the description says which fields each kind takes. Flattening
 * tools (LangChain's) keep every branch this way; the contract's union still validates the call.
 */
function flattenUnion(node: JsonSchema, branches: JsonSchema[], tag: string): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const kinds: string[] = [];
  const lines: string[] = [];
  for (const branch of branches) {
    const own = branch.properties as Record<string, JsonSchema>;
    const kind = String(own[tag]?.const);
    kinds.push(kind);
    const required = Array.isArray(branch.required) ? (branch.required as string[]) : [];
    const fields = Object.keys(own).filter((key) => key !== tag);
    const needs = fields.filter((key) => required.includes(key));
    const may = fields.filter((key) => !required.includes(key));
    lines.push(
      `${kind}: ${needs.join(', ') || 'nothing else'}${may.length ? ` (optional ${may.join(', ')})` : ''}`,
    );
    for (const key of fields) {
      const property = own[key] as JsonSchema;
      const taken = properties[key];
      const { description: _a, ...shape } = property;
      if (taken) {
        const { description: _b, ...takenShape } = taken;
        if (JSON.stringify(shape) !== JSON.stringify(takenShape))
          throw new Error(`Cannot flatten union: ${key} differs between its kinds`);
        continue;
      }
      properties[key] = property;
    }
  }
  const tagSchema = ((branches[0]?.properties ?? {}) as Record<string, JsonSchema>)[tag] ?? {};
  const { const: _const, ...tagRest } = tagSchema;
  const { oneOf: _oneOf, anyOf: _anyOf, ...rest } = node;
  return {
    ...rest,
    type: 'object',
    description: appendText(rest.description, `Fields by ${tag}: ${lines.join('; ')}.`),
    properties: { [tag]: { ...tagRest, type: 'string', enum: kinds }, ...properties },
    required: [tag],
    additionalProperties: false,
  };
}

/**
 * Rewrites a tool's input schema into the portable subset and lists the arguments that became
 * JSON text (`payload` → `payloadJson`), which {@link decodeJsonArguments} turns back.
 * @throws Error when a union cannot be written as one object (a new contract shape to decide on).
 */
export function toPortable(schema: JsonSchema): { schema: JsonSchema; jsonArguments: JsonArgument[] } {
  const jsonArguments: JsonArgument[] = [];
  const walk = (node: JsonSchema, path: readonly string[]): JsonSchema => {
    const variants = node.oneOf ?? node.anyOf;
    if (Array.isArray(variants) && variants.length > 1 && variants.every(isObject)) {
      const branches = variants as JsonSchema[];
      const tag = branches.every((b) => isObject(b.properties)) ? discriminatorOf(branches) : undefined;
      if (tag) return walk(flattenUnion(node, branches, tag), path);
      if (node.oneOf) throw new Error(`Cannot write a oneOf without a discriminator at ${path.join('.')}`);
    }
    const out: JsonSchema = {};
    for (const [key, child] of Object.entries(node)) {
      if (key === 'default' && child !== undefined) {
        const said = String(out.description ?? node.description ?? '');
        if (!/default/i.test(said)) out.description = appendText(said, `Default: ${JSON.stringify(child)}.`);
        continue;
      }
      if (DROPPED.has(key)) continue;
      if (key === 'format' && typeof child === 'string' && !PORTABLE_FORMATS.has(child)) {
        const text = FORMAT_TEXT[child];
        const said = String(out.description ?? node.description ?? '');
        if (text && !(child === 'email' && /e-?mail/i.test(said))) out.description = appendText(said, text);
        continue;
      }
      if (key === 'description' && typeof out.description === 'string') continue;
      if (key === 'properties' && isObject(child)) {
        const properties: Record<string, JsonSchema> = {};
        for (const [name, property] of Object.entries(child as Record<string, JsonSchema>)) {
          const free = isFreeObject(property) || isAnyValue(property);
          if (free) {
            jsonArguments.push({ path: [...path], name, arg: `${name}Json` });
            properties[`${name}Json`] = asJsonText(property, property.type === 'object');
          } else {
            properties[name] = walk(property, [...path, name]);
          }
        }
        out.properties = properties;
        continue;
      }
      if (key === 'required' && Array.isArray(child)) {
        const properties = (node.properties ?? {}) as Record<string, JsonSchema>;
        out.required = (child as string[]).map((name) => {
          const property = properties[name];
          return property && (isFreeObject(property) || isAnyValue(property)) ? `${name}Json` : name;
        });
        continue;
      }
      if (key === 'items' && isObject(child)) out.items = walk(child, [...path, '*']);
      else if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(child))
        out[key] = child.map((c) => (isObject(c) ? walk(c, path) : c));
      else out[key] = child;
    }
    return out;
  };
  return { schema: walk(schema, []), jsonArguments };
}

/** A problem decoding a JSON-text argument, with the argument's path. */
export interface DecodeIssue {
  path: string[];
  message: string;
}

/**
 * Turns the JSON-text arguments of a call back into the values the contract takes
 * (`payloadJson: "{…}"` → `payload: {…}`), in place on a copy of `args`. An argument given under
 * its contract name (`payload`) is refused, naming the one to use.
 */
export function decodeJsonArguments(
  jsonArguments: readonly JsonArgument[],
  args: Record<string, unknown>,
): { args: Record<string, unknown>; issues: DecodeIssue[] } {
  const copy = structuredClone(args);
  const issues: DecodeIssue[] = [];
  for (const { path, name, arg } of jsonArguments) {
    for (const [where, holder] of holders(copy, path, [])) {
      if (name in holder) {
        issues.push({ path: [...where, name], message: `Unknown argument; give it as ${arg} (JSON text)` });
      }
      if (!(arg in holder)) continue;
      const text = holder[arg];
      delete holder[arg];
      if (text === undefined) continue;
      if (typeof text !== 'string') {
        issues.push({ path: [...where, arg], message: 'Must be a string of JSON text' });
        continue;
      }
      try {
        holder[name] = JSON.parse(text);
      } catch (error) {
        issues.push({ path: [...where, arg], message: `Not valid JSON: ${(error as Error).message}` });
      }
    }
  }
  return { args: copy, issues };
}

/** The objects at `path` (`*` steps into every element of an array), each with where it is. */
function holders(
  value: unknown,
  path: readonly string[],
  at: string[],
): [string[], Record<string, unknown>][] {
  if (!isObject(value)) return [];
  const [step, ...rest] = path;
  if (step === undefined) return [[at, value]];
  const child = value[step];
  if (rest[0] === '*') {
    if (!Array.isArray(child)) return [];
    return child.flatMap((element, i) => holders(element, rest.slice(1), [...at, step, String(i)]));
  }
  return holders(child, rest, [...at, step]);
}
