import { describe, expect, it } from 'vitest';
import { contract, OPERATION_NAMES, operationMeta } from '../index.js';
import { etagMatches } from './conditional.js';

describe('etagMatches', () => {
  const tag = '"abc"';

  it('matches *, the tag itself, or the tag in a list', () => {
    expect(etagMatches('*', tag, 'strong')).toBe(true);
    expect(etagMatches('"abc"', tag, 'strong')).toBe(true);
    expect(etagMatches(' "x" , "abc" ', tag, 'strong')).toBe(true);
    expect(etagMatches('"x", "y"', tag, 'weak')).toBe(false);
    expect(etagMatches('abc', tag, 'weak')).toBe(false);
  });

  it('lets a weak tag match for If-None-Match only', () => {
    expect(etagMatches('W/"abc"', tag, 'weak')).toBe(true);
    expect(etagMatches('W/"abc"', tag, 'strong')).toBe(false);
  });
});

describe('the contract', () => {
  // The byte operations have their own: a download's ETag is its content's, with 304 (decision 0243).
  const routes = OPERATION_NAMES.filter((name) => !operationMeta(name).bytes).map(
    (name) => [name, contract[name], operationMeta(name)] as const,
  );

  it('answers 304 on every single-resource GET and on no other operation', () => {
    for (const [name, route, meta] of routes) {
      const single = route.method === 'GET' && meta.resource !== undefined;
      expect('304' in route.responses || 304 in route.responses, name).toBe(single);
      if (route.method === 'GET' && /:[a-z_]+$/.test(route.path)) expect(meta.resource, name).toBeDefined();
    }
  });

  it('answers 412 exactly on the operations that take If-Match', () => {
    for (const [name, route, meta] of routes) expect(412 in route.responses, name).toBe(meta.ifMatch);
  });

  it('takes If-Match on every PATCH, DELETE and state-changing POST on a resource', () => {
    for (const [name, route, meta] of routes) {
      const onResource = route.method !== 'GET' && /\/:[a-z_]+(\/[a-z_]+)?$/.test(route.path);
      // Appends and deliveries change no tagged resource; a log is never changed, so its delete
      // cannot lose an update (decision 0245).
      const kept = [
        'createAudienceSessionInteraction',
        'redeliverWebhookDelivery',
        'recoverWebhookDeliveries',
        'createAudienceVersion',
        'deletePersonLog',
        'deleteAccountLog',
      ];
      if (onResource && meta.kind !== 'create' && !kept.includes(name)) expect(meta.ifMatch, name).toBe(true);
    }
  });
});
