import type { Json } from './changes.js';
import { at, type Fixture, prop, schema } from './fixture-base.js';

/** Additive changes: the comparison reports them and lets them through. */
export const ADDITIVE_FIXTURES: Fixture[] = [
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
