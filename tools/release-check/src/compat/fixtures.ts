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

const schema = (doc: JsonObject, name: string) => at(doc, 'components', 'schemas', name);
const prop = (doc: JsonObject, name: string, field: string) => at(schema(doc, name), 'properties', field);
const requiredOf = (doc: JsonObject, name: string) => schema(doc, name).required as Json[];

/** One fixture per kind of breaking change DESIGN names, then additive ones. */
export const FIXTURES: Fixture[] = [
  {
    name: 'removed operation',
    kind: 'operation-removed',
    breaking: true,
    change: (d) => delete at(d, 'paths', '/v0/items/{item_id}').delete,
  },
  {
    name: 'renamed operation',
    kind: 'operation-renamed',
    breaking: true,
    change: (d) => {
      at(d, 'paths', '/v0/items/{item_id}', 'get').operationId = 'fetchItem';
    },
  },
  {
    name: 'removed response field',
    kind: 'response-field-removed',
    breaking: true,
    change: (d) => {
      delete at(schema(d, 'Item'), 'properties').name;
      schema(d, 'Item').required = ['id', 'status'];
    },
  },
  {
    name: 'renamed response field',
    kind: 'response-field-removed',
    breaking: true,
    change: (d) => {
      const p = at(schema(d, 'Item'), 'properties');
      p.title = p.note ?? null;
      delete p.note;
    },
  },
  {
    name: 'response field no longer always present',
    kind: 'response-field-optional',
    breaking: true,
    change: (d) => {
      schema(d, 'Item').required = ['id', 'name'];
    },
  },
  {
    name: 'response field of another type',
    kind: 'response-type-changed',
    breaking: true,
    change: (d) => {
      prop(d, 'Item', 'id').type = 'integer';
    },
  },
  {
    name: 'response field may now be null',
    kind: 'response-type-changed',
    breaking: true,
    change: (d) => {
      at(schema(d, 'Item'), 'properties').name = { anyOf: [{ type: 'string' }, { type: 'null' }] };
    },
  },
  {
    name: 'tightened request rule (shorter maxLength)',
    kind: 'request-rule-tightened',
    breaking: true,
    change: (d) => {
      prop(d, 'CreateItem', 'name').maxLength = 50;
    },
  },
  {
    name: 'tightened request rule (new pattern)',
    kind: 'request-rule-tightened',
    breaking: true,
    change: (d) => {
      prop(d, 'CreateItem', 'note').pattern = '^[a-z ]*$';
    },
  },
  {
    name: 'tightened query rule (lower maximum)',
    kind: 'request-rule-tightened',
    breaking: true,
    change: (d) => {
      at(d, 'paths', '/v0/items', 'get', 'parameters', '0', 'schema').maximum = 50;
    },
  },
  {
    name: 'optional request field made required',
    kind: 'request-field-required',
    breaking: true,
    change: (d) => {
      requiredOf(d, 'CreateItem').push('note');
    },
  },
  {
    name: 'new required request field',
    kind: 'request-field-required',
    breaking: true,
    change: (d) => {
      at(schema(d, 'CreateItem'), 'properties').owner = { type: 'string' };
      requiredOf(d, 'CreateItem').push('owner');
    },
  },
  {
    name: 'optional query parameter made required',
    kind: 'parameter-required',
    breaking: true,
    change: (d) => {
      at(d, 'paths', '/v0/items', 'get', 'parameters', '0').required = true;
    },
  },
  {
    name: 'removed enum value (request and response)',
    kind: 'enum-value-removed',
    breaking: true,
    change: (d) => {
      schema(d, 'Status').enum = ['active'];
    },
  },
  {
    name: 'removed enum value (response only)',
    kind: 'enum-value-removed',
    breaking: true,
    change: (d) => {
      prop(d, 'Item', 'status').enum = ['active'];
    },
  },
  {
    name: 'new value in a closed response enum',
    kind: 'response-enum-value-added',
    breaking: true,
    change: (d) => {
      prop(d, 'Item', 'status').enum = ['active', 'archived', 'deleted'];
    },
  },
  {
    name: 'removed query parameter',
    kind: 'parameter-removed',
    breaking: true,
    change: (d) => {
      (at(d, 'paths', '/v0/items', 'get').parameters as Json[]).pop();
    },
  },
  {
    name: 'removed request field',
    kind: 'request-field-removed',
    breaking: true,
    change: (d) => delete at(schema(d, 'CreateItem'), 'properties').note,
  },
  {
    name: 'removed response header',
    kind: 'response-header-removed',
    breaking: true,
    change: (d) => delete at(d, 'paths', '/v0/items', 'get', 'responses', '200', 'headers')['X-Request-Id'],
  },
  {
    name: 'removed success response',
    kind: 'response-removed',
    breaking: true,
    change: (d) => {
      delete at(d, 'paths', '/v0/items/{item_id}', 'delete', 'responses')['204'];
    },
  },
  {
    name: 'request body now required',
    kind: 'request-body-required',
    breaking: true,
    change: (d) => {
      at(d, 'paths', '/v0/items/{item_id}', 'delete').requestBody = {
        required: true,
        content: { 'application/json': { schema: { type: 'object' } } },
      };
    },
  },
  {
    name: 'request field of a narrower type',
    kind: 'request-type-narrowed',
    breaking: true,
    change: (d) => {
      prop(d, 'CreateItem', 'name').type = 'integer';
    },
  },
  {
    name: 'request media type removed',
    kind: 'request-media-type-removed',
    breaking: true,
    change: (d) => {
      at(d, 'paths', '/v0/items', 'post', 'requestBody').content = {
        'application/x-www-form-urlencoded': { schema: { $ref: '#/components/schemas/CreateItem' } },
      };
    },
  },
  {
    name: 'removed webhook event',
    kind: 'webhook-removed',
    breaking: true,
    change: (d) => delete at(d, 'webhooks')['item.created'],
  },
  {
    name: 'webhook payload field removed',
    kind: 'response-field-removed',
    breaking: true,
    change: (d) => {
      const s = at(
        d,
        'webhooks',
        'item.created',
        'post',
        'requestBody',
        'content',
        'application/json',
        'schema',
      );
      s.properties = {};
      s.required = [];
    },
  },
  {
    name: 'field dropped by moving the schema behind allOf',
    kind: 'response-field-removed',
    breaking: true,
    change: (d) => {
      const item = schema(d, 'Item');
      at(d, 'components', 'schemas').ItemBase = { type: 'object', properties: { id: { type: 'string' } } };
      at(d, 'components', 'schemas').Item = {
        allOf: [{ $ref: '#/components/schemas/ItemBase' }, { required: item.required ?? [] }],
      };
    },
  },
  {
    name: 'response pointed at another component without the field',
    kind: 'response-field-removed',
    breaking: true,
    change: (d) => {
      at(d, 'components', 'schemas').Item2 = { ...schema(d, 'Item'), properties: { id: { type: 'string' } } };
      at(d, 'paths', '/v0/items/{item_id}', 'get', 'responses', '200', 'content', 'application/json').schema =
        {
          $ref: '#/components/schemas/Item2',
        };
    },
  },
  {
    name: 'request field no longer accepts null',
    kind: 'request-type-narrowed',
    breaking: true,
    change: (d) => {
      at(schema(d, 'CreateItem'), 'properties').parentId = { type: 'string' };
    },
  },
  {
    name: 'new operation',
    kind: 'operation-added',
    breaking: false,
    change: (d) => {
      at(d, 'paths', '/v0/items/{item_id}').patch = {
        operationId: 'updateItem',
        responses: { '200': { description: 'OK' } },
      };
    },
  },
  {
    name: 'new optional request field',
    kind: 'request-field-added',
    breaking: false,
    change: (d) => {
      at(schema(d, 'CreateItem'), 'properties').tags = { type: 'array', items: { type: 'string' } };
    },
  },
  {
    name: 'new response field',
    kind: 'response-field-added',
    breaking: false,
    change: (d) => {
      at(schema(d, 'Item'), 'properties').createdAt = { type: 'string', format: 'date-time' };
    },
  },
  {
    name: 'new request-only enum value',
    kind: 'request-enum-value-added',
    breaking: false,
    change: (d) => {
      at(schema(d, 'CreateItem'), 'properties').status = {
        type: 'string',
        enum: ['active', 'archived', 'draft'],
      };
    },
  },
  {
    name: 'loosened request rule',
    kind: 'request-rule-loosened',
    breaking: false,
    change: (d) => {
      prop(d, 'CreateItem', 'name').maxLength = 200;
    },
  },
  {
    name: 'operation deprecated',
    kind: 'operation-deprecated',
    breaking: false,
    change: (d) => {
      at(d, 'paths', '/v0/items', 'get').deprecated = true;
    },
  },
  {
    name: 'new optional query parameter',
    kind: 'parameter-added',
    breaking: false,
    change: (d) => {
      (at(d, 'paths', '/v0/items', 'get').parameters as Json[]).push({
        name: 'q',
        in: 'query',
        required: false,
        schema: { type: 'string' },
      });
    },
  },
];

/** {@link FIXTURE_BASE} with one fixture's change applied (the base is never modified). */
export function applyFixture(fixture: Fixture): JsonObject {
  const doc = structuredClone(FIXTURE_BASE);
  fixture.change(doc);
  return doc;
}
