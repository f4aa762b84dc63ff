import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPERATION_NAMES } from './contract.js';
import { generateOpenApi } from './openapi.js';
import { WEBHOOK_HEADERS } from './webhooks/events.schemas.js';

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

  it('gives the message history endpoint exactly the specification error statuses, and 304', () => {
    const op = doc.paths['/v0/pages/{page_id}/audiences/{audience_id}/messages']?.get;
    expect(Object.keys(op?.responses ?? {}).sort()).toEqual([
      '200',
      '304',
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

type Operation = {
  operationId: string;
  security: Array<Record<string, string[]>>;
  requestBody?: { required: boolean };
  parameters: Array<{ in: string; name: string; description?: string; $ref?: string }>;
};
const operations = () =>
  Object.values(committed.paths as Record<string, Record<string, Operation>>).flatMap((byMethod) =>
    Object.entries(byMethod).map(([method, op]) => ({ method, ...op })),
  );

describe('openapi.json tells the whole truth', () => {
  it('declares its JSON Schema dialect and a {baseUrl} server for every environment', () => {
    expect(committed.jsonSchemaDialect).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(committed.servers).toEqual([
      expect.objectContaining({
        url: '{baseUrl}',
        variables: { baseUrl: expect.objectContaining({ default: 'http://127.0.0.1:3000' }) },
      }),
    ]);
    expect(generateOpenApi({ servers: [{ url: 'https://api.example.com' }] }).servers).toEqual([
      { url: 'https://api.example.com' },
    ]);
  });

  it('names the scope each operation needs: read for GET, write for the rest', () => {
    for (const op of operations()) {
      // A signed download link is its own credential: no key.
      const scopes = op.operationId.startsWith('downloadAsset')
        ? []
        : [{ apiKey: [op.method === 'get' ? 'read' : 'write'] }];
      expect(op.security, op.operationId).toEqual(scopes);
    }
    expect(committed.components.securitySchemes.apiKey.description).toContain('`write` every other one');
  });

  it('marks a body optional exactly where the server takes a POST without one', () => {
    const optional = operations().filter((op) => op.requestBody && !op.requestBody.required);
    expect(optional.map((op) => op.method)).toEqual(optional.map(() => 'post'));
    // The empty-object operations (archive, restore, publish, cancel, trash, rotate, redeliver, …).
    expect(optional.map((op) => op.operationId)).toEqual(
      expect.arrayContaining(['archivePage', 'restorePage', 'trashAsset', 'rotateWebhookSubscriptionSecret']),
    );
    expect(optional).toHaveLength(13);
    const required = operations().filter((op) => op.requestBody?.required);
    expect(required.map((op) => op.operationId)).toContain('createPage');
  });

  it('describes every parameter and names no component after a platform global', () => {
    for (const op of operations()) {
      for (const param of op.parameters.filter((p) => !p.$ref)) {
        expect(param.description, `${op.operationId} ${param.name}`).toBeTruthy();
      }
    }
    expect(Object.keys(committed.components.schemas)).not.toContain('Error');
    expect(Object.keys(committed.components.schemas)).toContain('ErrorResponse');
  });
});

type Responses = Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
const responsesOf = (op: Operation) => (op as unknown as { responses: Responses }).responses;

describe('openapi.json reads the same in every generator and example-driven tester', () => {
  it('gives every path and query parameter an example', () => {
    const missing = operations().flatMap((op) =>
      op.parameters
        .filter(
          (p) => (p.in === 'path' || p.in === 'query') && (p as { example?: unknown }).example === undefined,
        )
        .map((p) => `${op.operationId} ${p.in} ${p.name}`),
    );
    expect(missing).toEqual([]);
  });

  it('names every operation and webhook in camelCase', () => {
    const webhookIds = Object.values(committed.webhooks as Record<string, { post: Operation }>).map(
      (item) => item.post.operationId,
    );
    expect(webhookIds).toContain('webhookPageVersionCreated');
    for (const id of [...operations().map((op) => op.operationId), ...webhookIds])
      expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
  });

  it('lists only tags that some operation carries', () => {
    const used = new Set(
      [
        ...operations(),
        ...Object.values(committed.webhooks as Record<string, { post: unknown }>).map((i) => i.post),
      ].flatMap((op) => (op as { tags: string[] }).tags),
    );
    const tags = (committed.tags as Array<{ name: string }>).map((tag) => tag.name);
    expect(tags.filter((tag) => !used.has(tag))).toEqual([]);
    expect(tags).not.toContain('Page Links');
  });

  it('declares upload bodies as binary, application/octet-stream first, without a wildcard', () => {
    for (const op of operations().filter((o) => o.operationId.startsWith('putAsset'))) {
      const content = (op.requestBody as unknown as { content: Record<string, { schema: unknown }> }).content;
      expect(Object.keys(content)[0]).toBe('application/octet-stream');
      expect(Object.keys(content)).not.toContain('*/*');
      for (const media of Object.values(content))
        expect(media.schema).toEqual({ type: 'string', format: 'binary' });
    }
  });
});

describe('openapi.json declares every header the server sends', () => {
  it('declares x-request-id on every answer of the signed downloads', () => {
    const downloads = operations().filter((op) => op.operationId.startsWith('downloadAsset'));
    expect(downloads).toHaveLength(2);
    for (const op of downloads) {
      for (const [status, response] of Object.entries(responsesOf(op)))
        expect(response.headers?.['x-request-id'], `${op.operationId} ${status}`).toBeDefined();
    }
  });

  it('marks x-request-id required, with Retry-After on every 429 and 503', () => {
    expect(committed.components.headers.RequestId.required).toBe(true);
    for (const op of operations()) {
      const responses = (op as unknown as { responses: Record<string, { headers: Record<string, unknown> }> })
        .responses;
      for (const status of ['429', '503']) {
        if (responses[status])
          expect(responses[status].headers['Retry-After'], `${op.operationId} ${status}`).toBeDefined();
      }
    }
  });

  it('lists the six headers of a webhook delivery on every event', () => {
    for (const [type, item] of Object.entries(
      committed.webhooks as Record<
        string,
        { post: { parameters: Array<{ name: string; in: string; required: boolean }> } }
      >,
    )) {
      expect(
        item.post.parameters.map((p) => [p.name, p.in, p.required]),
        type,
      ).toEqual(Object.values(WEBHOOK_HEADERS).map((name) => [name, 'header', true]));
    }
  });
});
