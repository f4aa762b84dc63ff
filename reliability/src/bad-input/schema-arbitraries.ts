import fc from 'fast-check';
import { z } from 'zod';
import { boundaryValues, type Node, weirdValue } from './values.js';

/** The input JSON Schema of a contract Zod schema (what a client may send). */
export function jsonSchemaOf(schema: z.ZodType): Node {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Node;
}

/** A schema node with its `$defs`, `$ref`s resolved on demand. */
export class SchemaWalker {
  constructor(private readonly root: Node) {}

  resolve(node: Node): Node {
    if (!node.$ref) return node;
    const name = node.$ref.replace('#/$defs/', '');
    const target = this.root.$defs?.[name];
    if (!target) throw new Error(`unresolved ${node.$ref}`);
    return this.resolve(target);
  }

  /** Values the schema should accept (the server may still refuse them for business reasons). */
  valid(input: Node, depth = 0): fc.Arbitrary<unknown> {
    const node = this.resolve(input);
    if (node.anyOf) return fc.oneof(...node.anyOf.map((n) => this.valid(n, depth)));
    if (node.enum) return fc.constantFrom(...node.enum);
    switch (node.type) {
      case 'string':
        return validString(node);
      case 'integer':
        return fc.integer({
          min: Math.max(node.minimum ?? -1000, -1e6),
          max: Math.min(node.maximum ?? 1000, 1e6),
        });
      case 'number':
        return fc.double({ min: node.minimum ?? -1000, max: node.maximum ?? 1000, noNaN: true });
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array':
        if (depth > 3 || !node.items) return fc.constant([]);
        return fc.array(this.valid(node.items, depth + 1), {
          minLength: node.minItems ?? 0,
          maxLength: Math.max(node.minItems ?? 0, Math.min(node.maxItems ?? 3, 3)),
        });
      case 'object':
        return this.validObject(node, depth);
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  }

  private validObject(node: Node, depth: number): fc.Arbitrary<unknown> {
    const props = node.properties ?? {};
    const required = new Set(node.required ?? []);
    if (Object.keys(props).length === 0) {
      return node.additionalProperties === false
        ? fc.constant({})
        : fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
    }
    const optional = depth > 2 ? [] : Object.keys(props).filter((k) => !required.has(k));
    const record: Record<string, fc.Arbitrary<unknown>> = {};
    for (const key of [...required, ...optional]) record[key] = this.valid(props[key] as Node, depth + 1);
    return fc.record(record, { requiredKeys: [...required] });
  }

  /** Values at and past the node's limits, of wrong types, and nasty strings. */
  invalid(input: Node): fc.Arbitrary<unknown> {
    const node = this.resolve(input);
    const edges = boundaryValues(node);
    return edges.length > 0 ? fc.oneof(fc.constantFrom(...edges), weirdValue) : weirdValue;
  }

  /**
   * Object bodies with one defect each: a property replaced by an invalid value, a required
   * property dropped, unknown properties added, or not an object at all.
   */
  mutatedObject(input: Node): fc.Arbitrary<unknown> {
    const node = this.resolve(input);
    const props = node.properties ?? {};
    const keys = Object.keys(props);
    const base = this.valid(node) as fc.Arbitrary<Record<string, unknown>>;
    const variants: fc.Arbitrary<unknown>[] = [
      fc
        .tuple(base, fc.string({ minLength: 1, maxLength: 12 }), weirdValue)
        .map(([b, k, v]) => ({ ...b, [k]: v })),
      fc.constantFrom<unknown>([], 'body', 42, null, true, [{}]),
    ];
    if (keys.length > 0) {
      variants.push(
        fc
          .constantFrom(...keys)
          .chain((key) =>
            fc.tuple(base, this.invalid(props[key] as Node)).map(([b, v]) => ({ ...b, [key]: v })),
          ),
      );
    }
    const required = node.required ?? [];
    if (required.length > 0) {
      variants.push(
        fc.tuple(base, fc.constantFrom(...required)).map(([b, k]) => {
          const { [k]: _dropped, ...rest } = b;
          return rest;
        }),
      );
    }
    return fc.oneof(...variants);
  }
}

function validString(node: Node): fc.Arbitrary<string> {
  if (node.format === 'date-time')
    return fc
      .date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true })
      .map((d) => d.toISOString());
  if (node.format === 'uri') return fc.constantFrom('https://example.com/a', 'http://127.0.0.1:9/hook');
  if (node.format === 'email') return fc.constantFrom('ann@example.com', 'bob+x@mail.example.org');
  const min = node.minLength ?? 0;
  const max = Math.min(node.maxLength ?? 40, 40);
  if (node.pattern) {
    return fc
      .stringMatching(new RegExp(node.pattern))
      .filter((s) => s.length >= min && s.length <= (node.maxLength ?? Infinity));
  }
  return fc
    .string({ unit: 'grapheme', minLength: min, maxLength: Math.max(min, max) })
    .filter((s) => s.length <= (node.maxLength ?? Infinity));
}
