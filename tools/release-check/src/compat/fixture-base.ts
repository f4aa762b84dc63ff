import { type AdditiveKind, type BreakingKind, isObject, type Json, type JsonObject } from './changes.js';

const item = { $ref: '#/components/schemas/Item' };
const error = { description: 'Error', content: { 'application/json': { schema: { type: 'object' } } } };

/** A small document with what the comparison looks at: refs, parameters, bodies, headers, unions, enums, webhooks. */
export const FIXTURE_BASE: JsonObject = {
  openapi: '3.1.0',
  info: { title: 'Fixture', version: '1.0.0' },
  paths: {
    '/v0/items': {
      get: {
        operationId: 'listItems',
        parameters: [
          {
            name: 'limit',
            in: 'query',
            required: false,
            schema: { type: 'integer', minimum: 1, maximum: 100 },
          },
          { name: 'status', in: 'query', required: false, schema: { $ref: '#/components/schemas/Status' } },
        ],
        responses: {
          '200': {
            description: 'OK',
            headers: { 'X-Request-Id': { schema: { type: 'string' } } },
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['items', 'nextCursor'],
                  properties: {
                    items: { type: 'array', items: item },
                    nextCursor: { anyOf: [{ type: 'string' }, { type: 'null' }] },
                  },
                },
              },
            },
          },
        },
      },
      post: {
        operationId: 'createItem',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateItem' } } },
        },
        responses: {
          '201': { description: 'Created', content: { 'application/json': { schema: item } } },
          '400': error,
        },
      },
    },
    '/v0/items/{item_id}': {
      parameters: [{ name: 'item_id', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        operationId: 'getItem',
        responses: {
          '200': { description: 'OK', content: { 'application/json': { schema: item } } },
          '404': error,
        },
      },
      delete: { operationId: 'deleteItem', responses: { '204': { description: 'Deleted' }, '404': error } },
    },
  },
  webhooks: {
    'item.created': {
      post: {
        requestBody: {
          content: {
            'application/json': {
              schema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
            },
          },
        },
        responses: { '200': { description: 'Acknowledged' } },
      },
    },
  },
  components: {
    schemas: {
      Status: { type: 'string', enum: ['active', 'archived'] },
      Item: {
        type: 'object',
        required: ['id', 'name', 'status'],
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          status: { type: 'string', enum: ['active', 'archived'] },
          note: { type: 'string' },
        },
      },
      CreateItem: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 100 },
          note: { type: 'string' },
          parentId: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          status: { $ref: '#/components/schemas/Status' },
        },
        additionalProperties: false,
      },
    },
  },
};

/** One change to {@link FIXTURE_BASE} and the verdict DESIGN's compatibility policy gives it. */
export interface Fixture {
  name: string;
  /** The kind of change the comparison must report. */
  kind: BreakingKind | AdditiveKind;
  breaking: boolean;
  change: (doc: JsonObject) => void;
}

/** The object at `path` inside `doc` (throws when the fixture names a member that is not there). */
export function at(doc: JsonObject, ...path: string[]): JsonObject {
  let node: Json = doc;
  for (const key of path) {
    const next: Json | undefined = isObject(node)
      ? node[key]
      : Array.isArray(node)
        ? node[Number(key)]
        : undefined;
    if (next === undefined || next === null || typeof next !== 'object')
      throw new Error(`fixture: no ${path.join('.')}`);
    node = next;
  }
  if (!isObject(node)) throw new Error(`fixture: ${path.join('.')} is not an object`);
  return node;
}

/** A component schema of `doc`. */
export const schema = (doc: JsonObject, name: string) => at(doc, 'components', 'schemas', name);
/** A property of a component schema of `doc`. */
export const prop = (doc: JsonObject, name: string, field: string) =>
  at(schema(doc, name), 'properties', field);
/** The `required` list of a component schema of `doc`. */
export const requiredOf = (doc: JsonObject, name: string) => schema(doc, name).required as Json[];
