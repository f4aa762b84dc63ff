import { isObject, type Json, type JsonObject } from './changes.js';

/** Follows the local `$ref`s (`#/components/...`) of one OpenAPI document. */
export class Resolver {
  constructor(private readonly doc: JsonObject) {}

  /** The value a JSON pointer (`#/components/schemas/Page`) names, or undefined. */
  pointer(ref: string): Json | undefined {
    if (!ref.startsWith('#/')) return undefined;
    let node: Json | undefined = this.doc;
    for (const raw of ref.slice(2).split('/')) {
      const part = raw.replaceAll('~1', '/').replaceAll('~0', '~');
      node = isObject(node) ? node[part] : undefined;
    }
    return node;
  }

  /**
   * The object behind a chain of `$ref`s (members beside a `$ref` win over the target's, as in
   * OpenAPI 3.1), with `allOf` members merged into one object; undefined for anything else.
   */
  deref(value: Json | undefined): JsonObject | undefined {
    let node = value;
    let siblings: JsonObject = {};
    const seen = new Set<string>();
    while (isObject(node) && typeof node.$ref === 'string') {
      if (seen.has(node.$ref)) return undefined;
      seen.add(node.$ref);
      const { $ref, ...rest } = node;
      siblings = { ...rest, ...siblings };
      node = this.pointer($ref);
    }
    return isObject(node) ? this.mergeAllOf({ ...node, ...siblings }) : undefined;
  }

  private mergeAllOf(schema: JsonObject): JsonObject {
    const { allOf, ...rest } = schema;
    if (!Array.isArray(allOf)) return schema;
    const merged: JsonObject = { ...rest };
    const properties: JsonObject = isObject(rest.properties) ? { ...rest.properties } : {};
    const required = new Set(Array.isArray(rest.required) ? rest.required : []);
    for (const member of allOf) {
      const part = this.deref(member);
      if (!part) continue;
      if (isObject(part.properties)) Object.assign(properties, part.properties);
      if (Array.isArray(part.required)) for (const name of part.required) required.add(name);
      for (const [key, value] of Object.entries(part)) {
        if (key !== 'properties' && key !== 'required' && !(key in merged)) merged[key] = value;
      }
    }
    if (Object.keys(properties).length > 0) merged.properties = properties;
    if (required.size > 0) merged.required = [...required];
    return merged;
  }
}
