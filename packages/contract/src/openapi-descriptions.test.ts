import { describe, expect, it } from 'vitest';
import { generateOpenApi } from './openapi.js';

type Node = { [key: string]: unknown };

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const hasText = (node: Node | undefined) =>
  typeof node?.description === 'string' && node.description.trim() !== '';

/** The target of a local `$ref` (`#/components/schemas/Page`), or the node itself. */
function resolve(doc: Node, node: Node): Node {
  if (typeof node.$ref !== 'string') return node;
  const target = node.$ref
    .slice(2)
    .split('/')
    .reduce<unknown>((at, key) => (isNode(at) ? at[key] : undefined), doc);
  return isNode(target) ? target : node;
}

/**
 * Every place a caller fills in without a description: each parameter of each operation, and each
 * property of each request body at any depth (objects, array items, `anyOf`/`oneOf`/`allOf`
 * branches), following `$ref`s. A property that is only a `$ref` is described by its target.
 */
function undescribedInputs(doc: Node): string[] {
  const missing: string[] = [];
  const visit = (node: Node, at: string, seen: readonly string[]): void => {
    const ref = typeof node.$ref === 'string' ? node.$ref : undefined;
    if (ref && seen.includes(ref)) return;
    const schema = resolve(doc, node);
    const path = ref ? [...seen, ref] : seen;
    for (const [name, child] of Object.entries(isNode(schema.properties) ? schema.properties : {})) {
      if (!isNode(child)) continue;
      if (!hasText(child) && !hasText(resolve(doc, child))) missing.push(`${at}.${name}`);
      visit(child, `${at}.${name}`, path);
    }
    if (isNode(schema.items)) visit(schema.items, `${at}[]`, path);
    for (const key of ['anyOf', 'oneOf', 'allOf']) {
      const branches = schema[key];
      if (Array.isArray(branches)) for (const branch of branches) if (isNode(branch)) visit(branch, at, path);
    }
  };
  for (const [route, item] of Object.entries(doc.paths as Record<string, Node>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!isNode(op)) continue;
      const name = `${method.toUpperCase()} ${route}`;
      for (const param of (op.parameters ?? []) as Node[]) {
        const resolved = resolve(doc, param);
        if (!hasText(resolved)) missing.push(`${name} ${resolved.in} parameter ${resolved.name}`);
      }
      const content = isNode(op.requestBody) ? resolve(doc, op.requestBody).content : undefined;
      for (const [type, media] of Object.entries(isNode(content) ? content : {})) {
        if (isNode(media) && isNode(media.schema)) visit(media.schema, `${name} ${type} body`, []);
      }
    }
  }
  return [...new Set(missing)];
}

describe('the OpenAPI document', () => {
  it('describes every path and query parameter and every request property it takes', () => {
    expect(undescribedInputs(generateOpenApi() as Node)).toEqual([]);
  });

  it('names a request property or parameter left without a description, however it is reached', () => {
    const doc: Node = {
      paths: {
        '/things/{id}': {
          post: {
            parameters: [{ name: 'id', in: 'path' }, { $ref: '#/components/parameters/Key' }],
            requestBody: {
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: {
                      label: { type: 'string', description: 'Shown to people.' },
                      parts: { type: 'array', items: { $ref: '#/components/schemas/Part' } },
                    },
                  },
                },
              },
            },
          },
        },
      },
      components: {
        parameters: { Key: { name: 'Idempotency-Key', in: 'header', description: ' ' } },
        schemas: {
          Part: {
            oneOf: [
              { type: 'object', properties: { text: { type: 'string' } } },
              { type: 'object', properties: { next: { $ref: '#/components/schemas/Part' } } },
            ],
          },
        },
      },
    };
    expect(undescribedInputs(doc)).toEqual([
      'POST /things/{id} path parameter id',
      'POST /things/{id} header parameter Idempotency-Key',
      'POST /things/{id} application/json body.parts',
      'POST /things/{id} application/json body.parts[].text',
      'POST /things/{id} application/json body.parts[].next',
    ]);
  });
});
