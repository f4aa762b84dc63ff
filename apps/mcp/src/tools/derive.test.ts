import { contract, JSON_OPERATION_NAMES, operationMeta } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIST_LIMIT, deriveTools, toolName } from './derive.js';

const tools = deriveTools();
const tool = (name: string) => {
  const found = tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};
const props = (name: string) => tool(name).inputSchema.properties as Record<string, Record<string, unknown>>;

describe('deriveTools', () => {
  it('derives one snake_case tool per contract operation, in contract order', () => {
    expect(tools.map((t) => t.operation)).toEqual(JSON_OPERATION_NAMES);
    expect(tools.map((t) => t.name)).toEqual(JSON_OPERATION_NAMES.map(toolName));
    for (const t of tools) expect(t.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['list_pages', 'get_audience_messages', 'create_account_log']),
    );
  });

  it('takes titles from summaries and names tools, not operations, in descriptions', () => {
    expect(tool('list_pages').title).toBe(contract.listPages.summary);
    expect(tool('get_audience_messages').description).toContain('(from list_audiences)');
    for (const t of tools) {
      expect(t.description.length).toBeGreaterThan(20);
      for (const op of JSON_OPERATION_NAMES) expect(t.description).not.toMatch(new RegExp(`\\b${op}\\b`));
    }
  });

  it('sets annotations that are true', () => {
    for (const t of tools) {
      const meta = operationMeta(t.operation);
      expect(t.annotations.readOnlyHint).toBe(meta.kind === 'read');
      if (meta.kind === 'create') expect(t.annotations.idempotentHint, t.name).toBe(false);
      // The contract's metadata and the tool's annotations say the same thing.
      expect(t.annotations.destructiveHint, t.name).toBe(meta.destructive);
      expect(t.annotations.openWorldHint, t.name).toBe(meta.openWorld);
    }
    expect(tool('get_page').annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(tool('delete_page').annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(tool('restore_audience_message').annotations).toMatchObject({
      destructiveHint: true,
      idempotentHint: true,
    });
    // Undoing a delete or an archive overwrites nothing.
    expect(tool('restore_page').annotations).toMatchObject({ destructiveHint: false, idempotentHint: true });
    expect(tool('restore_audience').annotations).toMatchObject({ destructiveHint: false });
    expect(tool('create_page').annotations).toMatchObject({ destructiveHint: false, idempotentHint: false });
    // Two calls without an idempotencyKey make two entries.
    expect(tool('create_account_log').annotations).toMatchObject({ idempotentHint: false });
    expect(tool('create_audience_message').annotations).toMatchObject({ destructiveHint: true });
    // These make the server POST to a URL the caller chose.
    const open = tools.filter((t) => t.annotations.openWorldHint).map((t) => t.name);
    expect(open).toEqual([
      'create_webhook_subscription',
      'redeliver_webhook_delivery',
      'recover_webhook_deliveries',
    ]);
  });

  it('flattens path, query and body into one input object, path parameters in camelCase', () => {
    const activity = tool('list_account_activity');
    expect(Object.keys(props('list_account_activity'))).toEqual(
      expect.arrayContaining([
        'accountId',
        'cursor',
        'limit',
        'includePersonActivity',
        'includeDeleted',
        'fields',
      ]),
    );
    expect(activity.inputSchema.required).toEqual(['accountId']);
    expect(activity.bindings.accountId).toEqual({ part: 'params', key: 'account_id' });
    expect(activity.bindings.includeDeleted).toEqual({ part: 'query', key: 'includeDeleted' });
    const message = tool('create_audience_message');
    expect(message.inputSchema.required).toEqual(
      expect.arrayContaining(['pageId', 'audienceId', 'role', 'content']),
    );
    expect(message.bindings.content).toEqual({ part: 'body', key: 'content' });
    expect(tool('restore_page').inputSchema).toMatchObject({
      type: 'object',
      required: ['pageId'],
      additionalProperties: false,
    });
  });

  it('advertises the MCP list default and plain booleans for query flags', () => {
    expect(props('list_pages').limit).toMatchObject({ maximum: 100 });
    expect(props('list_pages').limit?.description).toContain(`default ${DEFAULT_LIST_LIMIT}`);
    expect(props('list_pages').limit).not.toHaveProperty('default');
    expect(props('list_account_activity').includeDeleted).toMatchObject({ type: 'boolean' });
  });

  it('offers fields only on reads, listing the item or result fields', () => {
    expect(tool('list_pages').fields).toEqual({
      target: 'items',
      names: expect.arrayContaining(['pageId', 'name']),
      summary: expect.arrayContaining(['pageId', 'name']),
      detail: 'get_page',
    });
    expect(tool('get_audience_messages').fields?.names).toEqual([
      'conversation',
      'messages',
      'context',
      'pendingChanges',
    ]);
    for (const t of tools.filter((t) => t.meta.kind !== 'read')) expect(props(t.name).fields).toBeUndefined();
  });

  it('describes each success body as an object schema, without the selected level’s required list', () => {
    for (const t of tools) expect(t.outputSchema.type).toBe('object');
    const list = tool('list_pages').outputSchema as {
      required: string[];
      properties: { items: { items: object } };
    };
    expect(list.required).toEqual(['items', 'hasMore', 'nextCursor', 'totalCount']);
    expect(list.properties.items.items).not.toHaveProperty('required');
    expect(tool('get_page').outputSchema).not.toHaveProperty('required');
    expect(tool('create_page').outputSchema.required).toEqual(
      expect.arrayContaining(['pageId', 'name', 'createdAt']),
    );
    expect(JSON.stringify(tools.map((t) => t.outputSchema))).not.toContain('$ref');
  });
});

describe('schemas in one portable style (what inspector --strict checks)', () => {
  const MAPS = new Set(['properties', 'patternProperties']);
  const DATA = new Set(['enum', 'const', 'default', 'examples', 'required']);
  const VALIDATION = ['type', 'anyOf', 'oneOf', 'allOf', 'enum', 'const', 'not'];
  /** Every schema node with its path (maps of named schemas and data keywords skipped). */
  function schemas(node: unknown, path: string): [string, Record<string, unknown>][] {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return [];
    const own = node as Record<string, unknown>;
    const children = Object.entries(own).flatMap(([key, child]) => {
      if (DATA.has(key)) return [];
      if (MAPS.has(key))
        return Object.entries(child as object).flatMap(([name, s]) => schemas(s, `${path}.${key}.${name}`));
      if (Array.isArray(child)) return child.flatMap((c, i) => schemas(c, `${path}.${key}[${i}]`));
      return schemas(child, `${path}.${key}`);
    });
    return [[path, own], ...children];
  }
  const all = tools.flatMap((t) => [
    ...schemas(t.inputSchema, `${t.name}.inputSchema`),
    ...schemas(t.outputSchema, `${t.name}.outputSchema`),
  ]);

  it('inlines every $ref', () => {
    for (const t of tools) {
      const json = JSON.stringify([t.inputSchema, t.outputSchema]);
      expect(json, t.name).not.toContain('$ref');
      expect(json, t.name).not.toContain('$defs');
    }
  });

  it('writes a nullable value only as anyOf [value, {type: "null"}], never as a type array', () => {
    expect(all.length).toBeGreaterThan(1_000);
    expect(all.filter(([, s]) => Array.isArray(s.type)).map(([path]) => path)).toEqual([]);
    const nullable = props('update_topic').purpose;
    expect(nullable?.anyOf).toEqual([expect.objectContaining({ type: 'string' }), { type: 'null' }]);
    expect(typeof nullable?.description).toBe('string');
  });

  it('gives every schema a validation keyword: a free-form value lists the JSON types', () => {
    const bare = all.filter(([, s]) => !VALIDATION.some((key) => key in s));
    expect(bare.map(([path]) => path)).toEqual([]);
  });
});

describe('wording for a model', () => {
  it('says error codes, not HTTP statuses, request bodies or query parameters', () => {
    const texts = JSON.stringify(tools.map((t) => [t.description, t.inputSchema, t.outputSchema]));
    const descriptions = [...texts.matchAll(/"description":"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]);
    descriptions.push(...tools.map((t) => t.description));
    for (const text of descriptions) {
      expect(text).not.toMatch(/\b(200|201|400|401|403|404|409|429|500|503)\b/);
      expect(text).not.toMatch(/empty object|query parameter/i);
    }
    expect(tool('restore_page').description).toContain('CONFLICT when');
    expect(texts).not.toMatch(/\b(createPerson|createAsset|listPages)\b/);
  });
});

describe('input properties described for a model', () => {
  /** Every property of an input schema at any depth, as `tool path` with its description. */
  function properties(node: Record<string, unknown>, path: string): [string, unknown][] {
    const own = Object.entries((node.properties ?? {}) as Record<string, Record<string, unknown>>);
    const nested = [
      ...own.flatMap(([key, child]) => [
        [`${path}.${key}`, child.description] as [string, unknown],
        ...properties(child, `${path}.${key}`),
      ]),
      ...(node.items ? properties(node.items as Record<string, unknown>, `${path}[]`) : []),
      ...((node.anyOf ?? node.oneOf ?? []) as Record<string, unknown>[]).flatMap((v) => properties(v, path)),
    ];
    return nested;
  }

  it('describes every input property of every tool, nested ones included', () => {
    const all = tools.flatMap((t) => properties(t.inputSchema, t.name));
    expect(all.length).toBeGreaterThan(200);
    expect(
      all.filter(([, description]) => typeof description !== 'string' || description.length < 5),
    ).toEqual([]);
  });

  it('says what a field means where it is (a link text is not a message part)', () => {
    const contentParts = props('create_audience_message').contentParts as {
      items: { properties: Record<string, { description: string }> };
    };
    expect(contentParts.items.properties.text?.description).toBe('Text of a text part.');
    expect(props('create_account_log').domain?.description).toMatch(/the account, by web domain/i);
  });
});

describe('id hints', () => {
  it('says where every path id comes from, naming tools that show it and do not need it', () => {
    for (const t of tools) {
      for (const [arg, binding] of Object.entries(t.bindings)) {
        if (binding.part !== 'params') continue;
        const named = [...t.description.matchAll(/\b(?:list|get|create)_[a-z_]+\b/g)].map((m) => m[0]);
        expect(t.description, t.name).toContain(arg);
        expect(named.length, `${t.name} names no source for ${arg}`).toBeGreaterThan(0);
      }
    }
    expect(tool('archive_page').description).toContain('Ids: pageId from list_pages or create_page.');
    expect(tool('restore_audience_message').description).toContain(
      'messageId from get_audience_messages or create_audience_message',
    );
    expect(tool('redeliver_webhook_delivery').description).toContain(
      'deliveryId from list_webhook_deliveries',
    );
    expect(tool('get_account').description).not.toContain('Ids:');
  });
});
