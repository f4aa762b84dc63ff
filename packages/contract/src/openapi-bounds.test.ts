import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { JSON_PAYLOAD_MAX_BYTES, MAX_BYTES_KEYWORD, TEXT_BOUNDS } from './common/bounds.js';
import { MetadataSchema, NewMetadataSchema } from './common/metadata.js';
import {
  ContentPartSchema,
  NewContentPartSchema,
  NewToolCallSchema,
  ToolCallSchema,
} from './messages/parts.schemas.js';
import {
  ActionCardWidgetSchema,
  ActionSchema,
  FooterLinkGroupSchema,
  NewActionCardWidgetSchema,
  NewActionSchema,
  NewFooterLinkGroupSchema,
  NewScriptSchema,
  ScriptSchema,
} from './pages/pages.schemas.js';
import { CreateTopicBodySchema } from './topics/topics.schemas.js';

type Schema = { [key: string]: unknown };
type Parameter = { name: string; in: string; schema: Schema; $ref?: string };
type Operation = {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
};

const doc = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; parameters: Record<string, Parameter> };
};

const resolve = (schema: Schema): Schema | undefined =>
  typeof schema.$ref === 'string' ? doc.components.schemas[schema.$ref.split('/').pop() ?? ''] : undefined;

const typesOf = (schema: Schema): unknown[] => (Array.isArray(schema.type) ? schema.type : [schema.type]);

/** A schema that says nothing of its value: free-form JSON (`{}`, `unknown`). */
const isFreeForm = (schema: Schema) =>
  Object.keys(schema).filter((key) => key !== 'description').length === 0;

/**
 * Every place under `schema` that lets a request grow without bound: a string without `maxLength`
 * (an `enum` or `const` bounds it too), an array without `maxItems`, free-form JSON outside a value
 * whose size is declared with the max-bytes keyword. A `$ref` beside its own `maxLength` counts.
 */
function unbounded(schema: Schema, where: string, byteBound = false, seen = new Set<Schema>()): string[] {
  if (seen.has(schema)) return [];
  const inner = new Set(seen).add(schema);
  const bounded = byteBound || typeof schema[MAX_BYTES_KEYWORD] === 'number';
  const target = resolve(schema);
  if (target) {
    const withOwnBound = schema.maxLength !== undefined || schema.maxItems !== undefined;
    return withOwnBound ? [] : unbounded(target, where, bounded, inner);
  }
  const found: string[] = [];
  const types = typesOf(schema);
  if (
    types.includes('string') &&
    schema.maxLength === undefined &&
    !schema.enum &&
    schema.const === undefined
  )
    found.push(`${where}: string without maxLength`);
  if (types.includes('array') && schema.maxItems === undefined)
    found.push(`${where}: array without maxItems`);
  if (isFreeForm(schema) && !bounded) found.push(`${where}: free-form JSON without ${MAX_BYTES_KEYWORD}`);
  const children: Array<[string, unknown]> = [
    ...Object.entries((schema.properties as Record<string, unknown>) ?? {}).map(
      ([key, value]) => [`${where}.${key}`, value] as [string, unknown],
    ),
    [`${where}[]`, schema.items],
    [
      `${where}{*}`,
      typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined,
    ],
    [`${where}{key}`, schema.propertyNames],
    ...(['anyOf', 'oneOf', 'allOf'] as const).flatMap((k) =>
      ((schema[k] as unknown[]) ?? []).map((value, i) => [`${where}|${i}`, value] as [string, unknown]),
    ),
  ];
  for (const [path, child] of children)
    if (child && typeof child === 'object') found.push(...unbounded(child as Schema, path, bounded, inner));
  return found;
}

const propertiesOf = (id: string) =>
  (doc.components.schemas[id]?.properties ?? {}) as Record<string, Schema | undefined>;

const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })),
);

describe('openapi.json bounds every request', () => {
  it('gives every path and query string a maxLength, every array a maxItems', () => {
    const found = operations.flatMap(({ name, op }) =>
      (op.parameters ?? []).flatMap((param) => {
        const p = param.$ref ? doc.components.parameters[param.$ref.split('/').pop() ?? ''] : param;
        return p ? unbounded(p.schema, `${name} ${p.in} ${p.name}`) : [`${name}: unknown parameter`];
      }),
    );
    expect(found).toEqual([]);
  });

  it('gives every JSON body string a maxLength, every array a maxItems, free-form JSON a size', () => {
    const bodies = operations.filter(({ op }) => op.requestBody?.content['application/json']);
    expect(bodies.length).toBeGreaterThan(20);
    const found = bodies.flatMap(({ name, op }) =>
      unbounded(op.requestBody?.content['application/json']?.schema ?? {}, `${name} body`),
    );
    expect(found).toEqual([]);
  });

  it('takes raw bytes only on the asset content uploads, which ASSET_MAX_BYTES bounds', () => {
    const raw = operations.filter(({ op }) =>
      Object.keys(op.requestBody?.content ?? {}).some((type) => type !== 'application/json'),
    );
    expect(raw.map(({ name }) => name).sort()).toEqual([
      'PUT /v0/assets/{asset_id}/content',
      'PUT /v0/assets/{asset_id}/preview',
    ]);
  });

  it('finds a string without maxLength, an array without maxItems and bare free-form JSON', () => {
    expect(
      unbounded(
        {
          type: 'object',
          properties: {
            title: { type: 'string' },
            tags: { type: 'array', items: { type: 'string', maxLength: 10 } },
            payload: { type: 'object', additionalProperties: {} },
            sized: { type: 'object', additionalProperties: {}, [MAX_BYTES_KEYWORD]: 10 },
          },
        },
        'x',
      ),
    ).toEqual([
      'x.title: string without maxLength',
      'x.tags: array without maxItems',
      `x.payload{*}: free-form JSON without ${MAX_BYTES_KEYWORD}`,
    ]);
  });

  it('declares the payload size of the log bodies', () => {
    for (const id of ['CreateAccountLogRequest', 'CreatePersonLogRequest']) {
      const payload = propertiesOf(id).payload;
      expect(payload?.[MAX_BYTES_KEYWORD], id).toBe(JSON_PAYLOAD_MAX_BYTES);
    }
  });
});

describe('responses keep their shapes', () => {
  it('sends topics, pages and messages without request bounds', () => {
    const title = propertiesOf('Topic').title;
    expect(title).toEqual({ type: 'string' });
    expect(JSON.stringify(doc.components.schemas.Metadata)).not.toContain('maxLength');
    expect(JSON.stringify(doc.components.schemas.Message)).not.toContain('maxLength');
    expect(JSON.stringify(doc.components.schemas.Action)).not.toContain('maxLength');
  });

  it('takes in requests exactly the fields it sends in responses', () => {
    const pairs = [
      [NewMetadataSchema, MetadataSchema],
      [NewActionSchema, ActionSchema],
      [NewActionCardWidgetSchema, ActionCardWidgetSchema],
      [NewFooterLinkGroupSchema, FooterLinkGroupSchema],
      [NewScriptSchema, ScriptSchema],
      [NewToolCallSchema, ToolCallSchema],
    ] as const;
    for (const [request, response] of pairs)
      expect(Object.keys(request.shape).sort()).toEqual(Object.keys(response.shape).sort());
    const variants = (schema: typeof ContentPartSchema | typeof NewContentPartSchema) =>
      schema.options.map((option) => Object.keys(option.shape).sort());
    expect(variants(NewContentPartSchema)).toEqual(variants(ContentPartSchema));
  });

  it('accepts a topic title of 500 characters and refuses 501 naming the title', () => {
    expect(CreateTopicBodySchema.safeParse({ title: 'x'.repeat(TEXT_BOUNDS.title) }).success).toBe(true);
    const refused = CreateTopicBodySchema.safeParse({ title: 'x'.repeat(TEXT_BOUNDS.title + 1) });
    expect(refused.error?.issues.map((issue) => issue.path)).toEqual([['title']]);
  });
});
