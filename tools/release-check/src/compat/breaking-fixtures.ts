import type { Json } from './changes.js';
import { at, type Fixture, prop, requiredOf, schema } from './fixture-base.js';

/** One fixture per kind of breaking change DESIGN names. */
export const BREAKING_FIXTURES: Fixture[] = [
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
];
