/**
 * What the model providers' function calling accepts in a tool's input schema, as documented,
 * checked over a `tools/list`. Each rule names the provider and the limit; see
 * docs/decisions/0216-tool-schemas-every-provider-accepts.md for the sources and what is targeted.
 */

type Schema = { [key: string]: unknown };

/** One place where a tool's input schema goes beyond what a provider accepts. */
export interface Violation {
  provider: 'openai-strict' | 'gemini' | 'langchain';
  rule: string;
  /** `tool` or `tool.property.path` (`[]` for array items). */
  where: string;
}

/** Keywords OpenAI's strict mode (Structured Outputs) accepts in a function's parameters. */
const OPENAI_KEYWORDS = new Set([
  'type',
  'description',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'pattern',
  'format',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);
const OPENAI_FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);
/** Object levels OpenAI strict mode allows (10 today; 5 when strict mode shipped, kept as the bound). */
const OPENAI_MAX_DEPTH = 5;
const OPENAI_MAX_PROPERTIES = 5000;
const OPENAI_MAX_ENUM_VALUES = 1000;

/** Fields of Gemini's `Schema` object (OpenAPI 3.0 subset) in `functionDeclarations[].parameters`. */
const GEMINI_KEYWORDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);
const GEMINI_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);
const GEMINI_FORMATS: Readonly<Record<string, readonly string[]>> = {
  string: ['enum', 'date-time'],
  number: ['float', 'double'],
  integer: ['int32', 'int64'],
};
/** Function and parameter names Gemini accepts. */
const GEMINI_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;
const GEMINI_PARAMETER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isObjectSchema = (s: unknown) => isObject(s) && (s.type === 'object' || isObject(s.properties));

/** Every rule of every provider broken by one tool's input schema. */
export function checkTool(tool: { name: string; inputSchema: Schema }): Violation[] {
  const out: Violation[] = [];
  const add = (provider: Violation['provider'], rule: string, where: string) =>
    out.push({ provider, rule, where });
  if (!GEMINI_NAME.test(tool.name) || !/^[A-Za-z0-9_-]{1,64}$/.test(tool.name)) {
    add('gemini', 'function name', tool.name);
    add('openai-strict', 'function name', tool.name);
  }
  const root = tool.inputSchema;
  if (root.type !== 'object' || 'anyOf' in root) add('openai-strict', 'root is an object', tool.name);
  let properties = 0;
  let enumValues = 0;
  const visit = (node: Schema, where: string, depth: number) => {
    for (const key of Object.keys(node)) {
      if (!OPENAI_KEYWORDS.has(key)) add('openai-strict', `keyword ${key}`, where);
      if (!GEMINI_KEYWORDS.has(key)) add('gemini', `keyword ${key}`, where);
    }
    const type = node.type;
    if (Array.isArray(type) || (type !== undefined && !GEMINI_TYPES.has(String(type))))
      add('gemini', 'one type per schema', where);
    if (typeof node.format === 'string') {
      if (!OPENAI_FORMATS.has(node.format)) add('openai-strict', `format ${node.format}`, where);
      if (!(GEMINI_FORMATS[String(type)] ?? []).includes(node.format))
        add('gemini', `format ${node.format}`, where);
    }
    if (Array.isArray(node.enum)) {
      enumValues += node.enum.length;
      if (type !== 'string' || node.enum.some((v) => typeof v !== 'string'))
        add('gemini', 'enum of strings only', where);
    }
    if (type === 'array' && !isObject(node.items)) {
      add('openai-strict', 'array items', where);
      add('gemini', 'array items', where);
    }
    if (isObjectSchema(node)) {
      if (depth > OPENAI_MAX_DEPTH) add('openai-strict', `nesting depth ${OPENAI_MAX_DEPTH}`, where);
      if (node.additionalProperties !== false) add('openai-strict', 'additionalProperties false', where);
      const own = isObject(node.properties) ? Object.keys(node.properties) : [];
      if (own.length === 0) add('gemini', 'object with properties', where);
      const required = Array.isArray(node.required) ? node.required : [];
      for (const name of own) {
        properties += 1;
        const at = `${where}.${name}`;
        if (!required.includes(name)) add('openai-strict', 'every property required', at);
        if (!GEMINI_PARAMETER.test(name)) add('gemini', 'property name', at);
        visit((node.properties as Record<string, Schema>)[name] as Schema, at, depth + 1);
      }
    }
    if (isObject(node.items)) visit(node.items, `${where}[]`, depth);
    if (isObject(node.additionalProperties)) visit(node.additionalProperties, `${where}{}`, depth);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      const variants = node[key];
      if (!Array.isArray(variants)) continue;
      // LangChain's simplifier keeps only a union's object branches and merges them into one.
      if (key !== 'anyOf') add('langchain', `${key} is merged`, where);
      else if (!variants.every(isObjectSchema))
        add('langchain', 'anyOf with a non-object branch is dropped', where);
      else add('langchain', 'anyOf of objects is merged', where);
      for (const variant of variants) if (isObject(variant)) visit(variant, where, depth);
    }
    if ('not' in node || 'if' in node) add('langchain', 'conditional dropped', where);
  };
  visit(root, tool.name, 1);
  if (properties > OPENAI_MAX_PROPERTIES) add('openai-strict', 'total properties', tool.name);
  if (enumValues > OPENAI_MAX_ENUM_VALUES) add('openai-strict', 'total enum values', tool.name);
  return out;
}

/** One committed exception: a provider's rule, where it stays broken, and why. */
export interface AllowedViolation {
  provider: Violation['provider'];
  rule: string;
  reason: string;
  where: string[];
}

/** Violations grouped as the allow-list lists them: by provider and rule, places sorted. */
export function groupViolations(violations: readonly Violation[]): Omit<AllowedViolation, 'reason'>[] {
  const groups = new Map<string, Omit<AllowedViolation, 'reason'>>();
  for (const { provider, rule, where } of violations) {
    const key = `${provider}\u0000${rule}`;
    const group = groups.get(key) ?? { provider, rule, where: [] };
    if (!group.where.includes(where)) group.where.push(where);
    groups.set(key, group);
  }
  return [...groups.values()]
    .map((g) => ({ ...g, where: [...g.where].sort() }))
    .sort((a, b) => `${a.provider} ${a.rule}`.localeCompare(`${b.provider} ${b.rule}`));
}
