import { contract, OPERATION_NAMES } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { useTestApp } from './test/test-app.js';

const t = useTestApp();

describe('every operation of the contract is served', () => {
  it('registers a route for each operation name (a missing handler would answer 404)', () => {
    const missing = OPERATION_NAMES.filter((name) => {
      const { method, path } = contract[name];
      return !t.app.hasRoute({ method, url: path });
    });
    expect(missing).toEqual([]);
  });

  it('is a check that can fail: a path no operation has is not registered', () => {
    expect(t.app.hasRoute({ method: 'GET', url: '/v0/no-such-operation' })).toBe(false);
    expect(t.app.hasRoute({ method: 'DELETE', url: '/healthz' })).toBe(false);
  });
});
