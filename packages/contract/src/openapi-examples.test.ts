import { readFileSync } from 'node:fs';
import { type AppRoute, ContractNoBody } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ID_PREFIXES } from './common/ids.js';
import { contract, OPERATION_NAMES, type OperationName, operationMeta } from './contract.js';
import { OPERATION_EXAMPLES, WEBHOOK_EXAMPLES } from './openapi-examples.js';
import { WEBHOOK_EVENT_TYPES, WebhookDeliveryBodySchema } from './webhooks/events.schemas.js';

const committed = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: Operation }>;
};
type Media = { content?: Record<string, { example?: unknown }> };
type Operation = { operationId: string; requestBody?: Media; responses: Record<string, Media> };

/** The Zod schemas of a route's JSON: its body and responses (raw bytes and empty answers are not). */
function schemasOf(name: OperationName): { body?: z.ZodType; responses: Array<[string, z.ZodType]> } {
  const route = contract[name] as AppRoute;
  const json = 'body' in route && route.body !== ContractNoBody && !operationMeta(name).bytes;
  const download = operationMeta(name).bytes === 'download';
  const responses = (Object.entries(route.responses) as Array<[string, z.ZodType]>).filter(
    ([status, schema]) => !(download && status.startsWith('2')) && !schema.safeParse(undefined).success,
  );
  return json ? { body: route.body as z.ZodType, responses } : { responses };
}

const problems = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value);
  return parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe('the examples of the OpenAPI document', () => {
  it.each(OPERATION_NAMES)('%s: its request and 2xx examples are valid against its schemas', (name) => {
    const examples = OPERATION_EXAMPLES[name];
    expect(examples, name).toBeDefined();
    const { body, responses } = schemasOf(name);
    if (body) {
      expect(examples?.request, `${name} request`).toBeDefined();
      expect(problems(body, examples?.request)).toEqual([]);
    }
    for (const [status, schema] of responses) {
      if (!status.startsWith('2')) continue;
      expect(examples?.responses[status], `${name} ${status}`).toBeDefined();
      expect(problems(schema, examples?.responses[status])).toEqual([]);
    }
  });

  it('covers every webhook event with valid bodies', () => {
    for (const type of WEBHOOK_EVENT_TYPES) {
      expect(problems(WebhookDeliveryBodySchema, WEBHOOK_EXAMPLES[type]), type).toEqual([]);
      expect((WEBHOOK_EXAMPLES[type] as { payload: { type: string } }).payload.type).toBe(type);
    }
  });

  it('uses ids of the form the server makes: <prefix>_ and 26 lower-case base32 characters', () => {
    const text = JSON.stringify([OPERATION_EXAMPLES, WEBHOOK_EXAMPLES]);
    const ids = [...text.matchAll(new RegExp(`"(${ID_PREFIXES.join('|')})_[^"]*"(?!:)`, 'g'))].map(
      (m) => m[0],
    );
    expect(ids.length).toBeGreaterThan(100);
    expect(ids.filter((id) => !/^"[a-z]+_[0-9a-hjkmnp-tv-z]{26}"$/.test(id))).toEqual([]);
  });

  it('gives each id parameter an id of the resource it names, as the recorded exchange sent it', () => {
    for (const [name, examples] of Object.entries(OPERATION_EXAMPLES)) {
      for (const [param, value] of Object.entries(examples.parameters ?? {})) {
        if (!param.endsWith('_id')) continue;
        const prefix =
          {
            audience_session: 'session',
            webhook_subscription: 'whsub',
            delivery: 'whdel',
            person_log: 'personlog',
            account_log: 'accountlog',
          }[param.slice(0, -3)] ?? param.slice(0, -3);
        expect(value, `${name} ${param}`).toMatch(new RegExp(`^${prefix}_[0-9a-hjkmnp-tv-z]{26}$`));
      }
    }
  });

  it('puts an example on every JSON request body and 2xx JSON response of openapi.json', () => {
    const missing: string[] = [];
    const operations = [
      ...Object.values(committed.paths).flatMap((item) => Object.values(item)),
      ...Object.values(committed.webhooks).map((item) => item.post),
    ];
    for (const op of operations) {
      const json = op.requestBody?.content?.['application/json'];
      if (json && json.example === undefined) missing.push(`${op.operationId} request`);
      for (const [status, response] of Object.entries(op.responses)) {
        const body = response.content?.['application/json'];
        if (status.startsWith('2') && body && body.example === undefined)
          missing.push(`${op.operationId} ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('keeps the examples out of the Zod schemas (the MCP tool schemas are made from them)', () => {
    const schemas = OPERATION_NAMES.flatMap((name) => {
      const { body, responses } = schemasOf(name);
      return [...(body ? [body] : []), ...responses.map(([, schema]) => schema)];
    });
    const text = JSON.stringify(schemas.map((schema) => z.toJSONSchema(schema, { unrepresentable: 'any' })));
    expect(text).not.toMatch(/"examples?":/);
  });
});
