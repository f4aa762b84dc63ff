import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPERATION_NAMES } from './contract.js';
import { generateOpenApi } from './openapi.js';

const committed = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8'));
const doc = generateOpenApi() as {
  paths: Record<
    string,
    Record<string, { operationId: string; tags: string[]; responses: Record<string, unknown> }>
  >;
};

describe('openapi.json', () => {
  it('is what the contract generates (run `pnpm --filter @customer-api/contract generate` after changing it)', () => {
    expect(committed).toEqual(doc);
  });

  it('lists all fifteen specification paths with {param} syntax', () => {
    const expected: [string, string][] = [
      ['get', '/v0/pages'],
      ['post', '/v0/pages/{page_id}/restore'],
      ['get', '/v0/pages/{page_id}/audiences'],
      ['post', '/v0/pages/{page_id}/audiences/{audience_id}/restore'],
      ['get', '/v0/pages/{page_id}/audiences/{audience_id}/versions/{version_id}'],
      ['get', '/v0/pages/{page_id}/audiences/{audience_id}/messages'],
      ['post', '/v0/pages/{page_id}/audiences/{audience_id}/messages/{message_id}/restore'],
      ['get', '/v0/assets/trash'],
      ['get', '/v0/accounts'],
      ['get', '/v0/accounts/{account_id}'],
      ['get', '/v0/accounts/{account_id}/activity'],
      ['post', '/v0/account_logs'],
      ['post', '/v0/topics'],
      ['get', '/v0/audience_sessions/{audience_session_id}/interactions'],
      ['post', '/v0/webhook_subscriptions'],
    ];
    for (const [method, path] of expected)
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
  });

  it('uses the contract operation names as operationIds, once each', () => {
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(ids.sort()).toEqual([...OPERATION_NAMES].sort());
  });

  it('gives the message history endpoint exactly the specification error statuses', () => {
    const op = doc.paths['/v0/pages/{page_id}/audiences/{audience_id}/messages']?.get;
    expect(Object.keys(op?.responses ?? {}).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '429',
      '500',
      '503',
    ]);
  });
});
