import type { JsonSchema } from './json-schema.js';

/**
 * Words of a property name (camelCase) that mark free text of any length: a page's or an
 * audience's context, instructions for the model, message content and reasoning. Such strings
 * are what made a page of ten items overflow a result.
 */
const LONG_TEXT_WORDS: ReadonlySet<string> = new Set(['context', 'instructions', 'content', 'reasoning']);
/** Text written by a model about a record (an asset's `aiDescription`), as long as it chose. */
const LONG_TEXT_NAMES: ReadonlySet<string> = new Set(['aiDescription']);

function words(name: string): string[] {
  return name.split(/(?=[A-Z])/).map((word) => word.toLowerCase());
}

/** The schema of a value, without the `{type: "null"}` branch of a nullable one. */
function valueSchema(schema: JsonSchema): JsonSchema {
  const variants = schema.anyOf;
  if (!Array.isArray(variants)) return schema;
  const values = (variants as JsonSchema[]).filter((v) => v.type !== 'null');
  return values.length === 1 && values[0] ? values[0] : schema;
}

const SCALARS: ReadonlySet<unknown> = new Set(['string', 'integer', 'number', 'boolean']);

/**
 * Whether an item property belongs in the summary a list returns by default: ids, names,
 * statuses, flags, counts, timestamps and lists of such values (tags, event types) do; nested
 * objects, lists of objects and free text (see {@link LONG_TEXT_WORDS}) do not.
 */
export function isSummaryField(name: string, schema: JsonSchema): boolean {
  const value = valueSchema(schema);
  if (value.type === 'array') return SCALARS.has(valueSchema((value.items ?? {}) as JsonSchema).type);
  if (!SCALARS.has(value.type)) return false;
  if (value.type !== 'string' || value.enum !== undefined || value.format !== undefined) return true;
  return !LONG_TEXT_NAMES.has(name) && !words(name).some((word) => LONG_TEXT_WORDS.has(word));
}

/**
 * The fields of a list item's JSON Schema (as advertised: nullable values as `anyOf`) that make
 * its summary, in schema order.
 */
export function summaryFields(item: JsonSchema): string[] {
  const properties = (item.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(properties)
    .filter(([name, schema]) => isSummaryField(name, schema))
    .map(([name]) => name);
}
