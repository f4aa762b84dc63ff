import type { AppRoute } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { contract } from '../contract.js';
import { generateOpenApi } from '../openapi.js';
import { type Deprecation, deprecationHeaders, markDeprecated } from './deprecation.js';
import type { OperationMeta } from './operations.js';

const DEPRECATION: Deprecation = {
  since: '2027-01-15',
  sunset: '2027-07-15T12:00:00Z',
  replacement: 'listPages',
};

type Operation = {
  deprecated?: boolean;
  description?: string;
  responses: Record<string, { headers?: Record<string, unknown> }>;
};

describe('deprecation headers', () => {
  it('writes Deprecation as an RFC 9745 date (@ Unix seconds) and Sunset as an HTTP date', () => {
    expect(deprecationHeaders(DEPRECATION)).toEqual({
      Deprecation: '@1799971200',
      Sunset: 'Thu, 15 Jul 2027 12:00:00 GMT',
    });
  });

  it.each([
    [{ since: 'soon', sunset: '2027-07-15' }, /ISO 8601/],
    [{ since: '2027-01-15', sunset: '15/07/2027' }, /ISO 8601/],
    [{ since: '2027-07-15', sunset: '2027-01-15' }, /before since/],
  ])('refuses %j', (deprecation, message) => {
    expect(() => deprecationHeaders(deprecation)).toThrow(message);
  });
});

describe('deprecated operations in OpenAPI', () => {
  it('marks the operation, says what replaces it and declares both headers on every response', () => {
    const op: Operation = {
      description: 'Lists old things.',
      responses: { '200': {}, '404': { headers: { A: 1 } } },
    };
    markDeprecated(op, DEPRECATION);
    expect(op.deprecated).toBe(true);
    expect(op.description).toMatch(
      /^Deprecated since 2027-01-15; removed after Thu, 15 Jul 2027 12:00:00 GMT\. Use `listPages` instead\.\n\nLists old things\.$/,
    );
    for (const response of Object.values(op.responses)) {
      expect(Object.keys(response.headers ?? {})).toEqual(expect.arrayContaining(['Deprecation', 'Sunset']));
    }
    expect(op.responses['404']?.headers?.A).toBe(1);
  });

  it('no operation of the contract is deprecated today', () => {
    const doc = generateOpenApi() as { paths: Record<string, Record<string, Operation>> };
    const deprecated = Object.values(doc.paths).flatMap((item) =>
      Object.values(item).filter((op) => op.deprecated),
    );
    expect(deprecated).toEqual([]);
  });

  it("follows an operation's metadata into the generated document", () => {
    const route = contract.getPage as AppRoute;
    const original = route.metadata;
    Object.assign(route, { metadata: { ...(original as OperationMeta), deprecated: DEPRECATION } });
    try {
      const doc = generateOpenApi() as { paths: Record<string, Record<string, Operation>> };
      const op = doc.paths['/v0/pages/{page_id}']?.get;
      expect(op?.deprecated).toBe(true);
      for (const response of Object.values(op?.responses ?? {})) {
        expect(response.headers).toHaveProperty('Deprecation');
        expect(response.headers).toHaveProperty('Sunset');
      }
      expect(doc.paths['/v0/pages']?.get?.deprecated).toBeUndefined();
    } finally {
      Object.assign(route, { metadata: original });
    }
  });
});
