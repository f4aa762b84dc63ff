import { type ChangeLog, isObject, type Json, type JsonObject } from './changes.js';
import type { Resolver } from './resolver.js';

/** Which way a schema's data flows: sent by the consumer, or received by it. */
export type Direction = 'request' | 'response';

/** Request bounds that tighten when they fall (upper) or rise (lower). */
const UPPER_BOUNDS = ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties'] as const;
const LOWER_BOUNDS = ['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties'] as const;
/** Request rules that tighten when added or changed. */
const EXACT_RULES = ['pattern', 'format', 'multipleOf'] as const;

const show = (value: Json | undefined) => (value === undefined ? 'none' : JSON.stringify(value));
const numberOf = (value: Json | undefined) => (typeof value === 'number' ? value : undefined);

function typesOf(schema: JsonObject): Set<string> | undefined {
  const { type } = schema;
  if (typeof type === 'string') return new Set([type]);
  if (Array.isArray(type)) return new Set(type.filter((t): t is string => typeof t === 'string'));
  return undefined;
}

/** A type set accepts `type` when it holds it (an integer is also a number). */
const accepts = (types: Set<string>, type: string) =>
  types.has(type) || (type === 'integer' && types.has('number'));

function valuesOf(schema: JsonObject): string[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v));
  if ('const' in schema) return [JSON.stringify(schema.const)];
  return undefined;
}

function variantsOf(schema: JsonObject): Json[] | undefined {
  const variants = schema.anyOf ?? schema.oneOf;
  return Array.isArray(variants) ? variants : undefined;
}

/** What identifies a union member across versions: the component it names, else its type. */
function variantKey(variant: Json): string {
  if (!isObject(variant)) return JSON.stringify(variant);
  if (typeof variant.$ref === 'string') return variant.$ref;
  if (variant.type !== undefined) return JSON.stringify(variant.type);
  if ('const' in variant) return `const ${JSON.stringify(variant.const)}`;
  return 'any';
}

/**
 * Compares the JSON Schemas of two OpenAPI documents in one direction: a request schema breaks
 * consumers when it accepts less, a response schema when it may send what it did not before or
 * stops sending what it did. A component shared by several places is compared once per direction.
 */
export class SchemaDiff {
  private readonly compared = new Set<string>();

  constructor(
    private readonly before: Resolver,
    private readonly after: Resolver,
    private readonly log: ChangeLog,
  ) {}

  /** Records every change between `oldSchema` and `newSchema` found under `at`. */
  compare(oldSchema: Json | undefined, newSchema: Json | undefined, at: string, dir: Direction): void {
    if (isObject(oldSchema) && isObject(newSchema) && typeof oldSchema.$ref === 'string') {
      const key = `${dir} ${oldSchema.$ref} ${String(newSchema.$ref)}`;
      if (this.compared.has(key)) return;
      this.compared.add(key);
    }
    const o = this.before.deref(oldSchema);
    const n = this.after.deref(newSchema);
    if (!o || !n) return;
    const oldVariants = variantsOf(o);
    const newVariants = variantsOf(n);
    if (oldVariants || newVariants) {
      this.compareVariants(oldVariants ?? [oldSchema ?? {}], newVariants ?? [newSchema ?? {}], at, dir);
      return;
    }
    this.compareTypes(o, n, at, dir);
    this.compareValues(o, n, at, dir);
    if (dir === 'request') this.compareRules(o, n, at);
    this.compareProperties(o, n, at, dir);
    if (o.items !== undefined && n.items !== undefined) this.compare(o.items, n.items, `${at}[]`, dir);
    if (isObject(o.additionalProperties) && isObject(n.additionalProperties)) {
      this.compare(o.additionalProperties, n.additionalProperties, `${at}{}`, dir);
    }
  }

  private compareVariants(oldVariants: Json[], newVariants: Json[], at: string, dir: Direction): void {
    const unmatched = [...newVariants];
    for (const variant of oldVariants) {
      const index = unmatched.findIndex((v) => variantKey(v) === variantKey(variant));
      if (index === -1) {
        if (dir === 'request')
          this.log.add('request-type-narrowed', at, `no longer accepts ${variantKey(variant)}`);
        continue;
      }
      const [match] = unmatched.splice(index, 1);
      this.compare(variant, match, at, dir);
    }
    if (dir === 'response') {
      for (const variant of unmatched)
        this.log.add('response-type-changed', at, `may now be ${variantKey(variant)}`);
    }
  }

  private compareTypes(o: JsonObject, n: JsonObject, at: string, dir: Direction): void {
    const oldTypes = typesOf(o);
    const newTypes = typesOf(n);
    const detail = `type ${show(o.type)} → ${show(n.type)}`;
    if (dir === 'request' && newTypes && (!oldTypes || [...oldTypes].some((t) => !accepts(newTypes, t)))) {
      this.log.add('request-type-narrowed', at, detail);
    }
    if (dir === 'response' && oldTypes && (!newTypes || [...newTypes].some((t) => !accepts(oldTypes, t)))) {
      this.log.add('response-type-changed', at, detail);
    }
  }

  private compareValues(o: JsonObject, n: JsonObject, at: string, dir: Direction): void {
    const oldValues = valuesOf(o);
    const newValues = valuesOf(n);
    if (oldValues && newValues) {
      const removed = oldValues.filter((v) => !newValues.includes(v));
      const added = newValues.filter((v) => !oldValues.includes(v));
      if (removed.length > 0) this.log.add('enum-value-removed', at, removed.join(', '));
      if (added.length > 0) {
        this.log.add(
          dir === 'request' ? 'request-enum-value-added' : 'response-enum-value-added',
          at,
          added.join(', '),
        );
      }
    } else if (newValues && dir === 'request') {
      this.log.add('request-rule-tightened', at, `now one of ${newValues.join(', ')}`);
    } else if (oldValues && dir === 'response') {
      this.log.add('response-type-changed', at, `no longer one of ${oldValues.join(', ')}`);
    }
  }

  private compareRules(o: JsonObject, n: JsonObject, at: string): void {
    const bound = (key: string, tighter: (a: number, b: number) => boolean) => {
      const a = numberOf(o[key]);
      const b = numberOf(n[key]);
      const detail = `${key} ${show(o[key])} → ${show(n[key])}`;
      if (b !== undefined && (a === undefined || tighter(a, b)))
        this.log.add('request-rule-tightened', at, detail);
      else if (a !== undefined && (b === undefined || tighter(b, a)))
        this.log.add('request-rule-loosened', at, detail);
    };
    for (const key of UPPER_BOUNDS) bound(key, (a, b) => b < a);
    for (const key of LOWER_BOUNDS) bound(key, (a, b) => b > a);
    for (const key of EXACT_RULES) {
      const detail = `${key} ${show(o[key])} → ${show(n[key])}`;
      if (n[key] !== undefined && show(o[key]) !== show(n[key]))
        this.log.add('request-rule-tightened', at, detail);
      else if (o[key] !== undefined && n[key] === undefined)
        this.log.add('request-rule-loosened', at, detail);
    }
    if (n.uniqueItems === true && o.uniqueItems !== true)
      this.log.add('request-rule-tightened', at, 'uniqueItems');
    if (n.additionalProperties === false && o.additionalProperties !== false) {
      this.log.add('request-rule-tightened', at, 'unknown fields now refused');
    }
  }

  private compareProperties(o: JsonObject, n: JsonObject, at: string, dir: Direction): void {
    const oldProps = isObject(o.properties) ? o.properties : {};
    const newProps = isObject(n.properties) ? n.properties : {};
    const oldRequired = new Set(Array.isArray(o.required) ? o.required : []);
    const newRequired = new Set(Array.isArray(n.required) ? n.required : []);
    for (const [name, schema] of Object.entries(oldProps)) {
      const child = `${at} › ${name}`;
      if (!(name in newProps)) {
        this.log.add(dir === 'request' ? 'request-field-removed' : 'response-field-removed', child);
        continue;
      }
      if (dir === 'request' && !oldRequired.has(name) && newRequired.has(name)) {
        this.log.add('request-field-required', child, 'was optional');
      }
      if (dir === 'response' && oldRequired.has(name) && !newRequired.has(name)) {
        this.log.add('response-field-optional', child, 'was always present');
      }
      this.compare(schema, newProps[name], child, dir);
    }
    for (const name of Object.keys(newProps)) {
      if (name in oldProps) continue;
      const child = `${at} › ${name}`;
      if (dir === 'response') this.log.add('response-field-added', child);
      else if (newRequired.has(name)) this.log.add('request-field-required', child, 'new required field');
      else this.log.add('request-field-added', child);
    }
  }
}
