import {
  contract,
  JSON_OPERATION_NAMES,
  type JsonOperationName,
  type OperationMeta,
  operationMeta,
  type ResourceGroup,
} from '@customer-api/contract';
import type { ToolAnnotations } from '@modelcontextprotocol/server';
import { type AppRoute, ContractNoBody } from '@ts-rest/core';
import { z } from 'zod';
import { reword, rewordSchema } from './descriptions.js';
import { ETAG_OUTPUT, EXPECTED_ETAG_ARGUMENT } from './etag.js';
import { withIdSources } from './id-sources.js';
import {
  type JsonSchema,
  normalizeSchema,
  objectParts,
  outputView,
  toJsonSchema,
  undescribedProperties,
} from './json-schema.js';
import { DEFAULT_MESSAGES_LIMIT, MESSAGE_WINDOW_ARGUMENTS, MESSAGE_WINDOW_OUTPUT } from './messages.js';
import { toolName } from './names.js';
import { toPortable } from './portable.js';
import { summaryFields } from './summary.js';
import type { ArgBinding, FieldSelection, ToolDefinition } from './types.js';

export type { ArgBinding, FieldSelection, JsonArgument, ToolDefinition } from './types.js';

/** Page size list tools use when the caller gives no `limit` (the API's own default is 20). */
export const DEFAULT_LIST_LIMIT = 10;

export { toolName } from './names.js';

/** The toolset slug of a resource group: lower-case words joined by hyphens (`Account Logs` → `account-logs`). */
export function toolsetSlug(group: ResourceGroup): string {
  return group.toLowerCase().replace(/\s+/g, '-');
}

/** snake_case path parameters become camelCase arguments, matching the ids in results (`page_id` → `pageId`). */
function argName(pathParam: string): string {
  return pathParam.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}

const OPERATION_PATTERN = new RegExp(
  `\\b(${[...JSON_OPERATION_NAMES].sort((a, b) => b.length - a.length).join('|')})\\b`,
  'g',
);

/** Contract texts name operations (`listPages`) and HTTP statuses; a model sees tools and error codes. */
function forModel(text: string): string {
  return reword(text).replace(OPERATION_PATTERN, (name) => toolName(name));
}

/** Contract descriptions name operations (`listPages`); a model sees tools (`list_pages`). */
function describe(route: AppRoute, meta: OperationMeta, messageWindow: boolean): string {
  const text = forModel(route.description ?? route.summary ?? '');
  if (messageWindow) {
    return `${text.replace('messages oldest first', 'messages')} Messages come newest first, ${DEFAULT_MESSAGES_LIMIT} unless limit is set; when nextBefore is not null, call again with before=nextBefore for older ones.`;
  }
  if (!meta.paginated) return text;
  return `${text} Returns ${DEFAULT_LIST_LIMIT} items unless limit is set (max 100); when hasMore is true, call again with cursor=nextCursor.`;
}

function successSchema(route: AppRoute): z.ZodType {
  const responses = route.responses as Record<number, unknown>;
  const status = [200, 201, 202].find((s) => responses[s] !== undefined);
  if (status === undefined) throw new Error(`${route.path} has no success response`);
  return responses[status] as z.ZodType;
}

/**
 * True hints for a model, read from the contract's metadata (the tool's own `title` is the display
 * name; `annotations.title` would only repeat it). A create is never idempotent as a tool: each
 * call is meant to make a new resource (its retries are made safe by the client's
 * Idempotency-Key, not by the caller).
 */
export function annotationsOf(meta: OperationMeta): ToolAnnotations {
  return {
    readOnlyHint: meta.kind === 'read',
    destructiveHint: meta.destructive,
    idempotentHint: meta.kind !== 'create' && meta.idempotent,
    openWorldHint: meta.openWorld,
  };
}

/** Derives the tool of one contract operation. */
export function deriveTool(operation: JsonOperationName): ToolDefinition {
  const route = contract[operation] as AppRoute;
  const meta = operationMeta(operation);
  const name = toolName(operation);
  const title = route.summary ?? name;
  const selection = meta.kind === 'read' ? fieldSelection(successSchema(route), meta.paginated) : undefined;
  const messageWindow = meta.windowed;
  const output = outputSchema(successSchema(route), meta, selection);
  if (messageWindow) Object.assign(output.properties as JsonSchema, MESSAGE_WINDOW_OUTPUT);
  if (meta.sendsEtag) Object.assign(output.properties as JsonSchema, { etag: ETAG_OUTPUT });
  const advertised = rewordSchema(normalizeSchema(output), forModel);
  const fields = selection?.target === 'items' ? withSummary(selection, advertised, operation) : selection;
  const input = inputSchema(name, route, fields, messageWindow);
  if (meta.ifMatch) {
    if (input.bindings.expectedEtag) throw new Error(`Tool ${name}: argument expectedEtag is taken`);
    input.schema.properties = {
      ...(input.schema.properties as JsonSchema),
      expectedEtag: EXPECTED_ETAG_ARGUMENT,
    };
  }
  const normalized = normalizeSchema(input.schema);
  const undescribed = undescribedProperties(normalized);
  if (undescribed.length > 0) {
    throw new Error(`Tool ${name}: the contract does not describe ${undescribed.join(', ')}`);
  }
  const portable = toPortable(rewordSchema(normalized, forModel));
  return {
    name,
    operation,
    title,
    description: describe(route, meta, messageWindow),
    inputSchema: portable.schema,
    outputSchema: advertised,
    annotations: annotationsOf(meta),
    meta,
    toolset: toolsetSlug(meta.group),
    bindings: input.bindings,
    fields,
    jsonArguments: portable.jsonArguments,
    messageWindow,
  };
}

let cached: readonly ToolDefinition[] | undefined;

/** Every tool, one per contract operation, in contract order, with id hints (computed once). */
export function deriveTools(): readonly ToolDefinition[] {
  cached ??= withIdSources(JSON_OPERATION_NAMES.map(deriveTool));
  return cached;
}

function fieldSelection(output: z.ZodType, paginated: boolean): FieldSelection | undefined {
  const root = output instanceof z.ZodObject ? output : undefined;
  if (!paginated) return root ? { target: 'root', names: Object.keys(root.shape) } : undefined;
  const items = root?.shape.items;
  const item = items instanceof z.ZodArray ? items.element : undefined;
  return item instanceof z.ZodObject ? { target: 'items', names: Object.keys(item.shape) } : undefined;
}

/** A list's summary: the item fields {@link summaryFields} picks from the advertised item schema, and the tool reading one item in full. */
function withSummary(
  selection: FieldSelection,
  output: JsonSchema,
  operation: JsonOperationName,
): FieldSelection {
  const items = (output.properties as Record<string, JsonSchema>).items?.items as JsonSchema;
  const summary = summaryFields(items);
  // A list whose items are all short has no summary: it returns every field.
  if (summary.length === selection.names.length) return selection;
  const detail = detailTool(operation);
  return { ...selection, summary, ...(detail ? { detail } : {}) };
}

/** The tool reading one item of a list in full (`list_pages` → `get_page`), when there is one. */
function detailTool(operation: JsonOperationName): string | undefined {
  const get = operation.replace(/^list(.*?)s?$/, 'get$1');
  return get !== operation && (JSON_OPERATION_NAMES as readonly string[]).includes(get)
    ? toolName(get)
    : undefined;
}

/** Object levels spelled out in output schemas (the items of a page of results count as the top). */
export const OUTPUT_SCHEMA_DEPTH = 1;

/**
 * The success body's schema, shaped by {@link outputView}. With `fields`, the selected level may
 * lack any property, so its `required` list is dropped: results must validate against the schema.
 */
function outputSchema(
  output: z.ZodType,
  meta: OperationMeta,
  fields: FieldSelection | undefined,
): JsonSchema {
  const json = outputView(toJsonSchema(output, 'output'), OUTPUT_SCHEMA_DEPTH, meta.paginated);
  if (!fields) return json;
  const level =
    fields.target === 'root'
      ? json
      : ((json.properties as Record<string, JsonSchema>).items?.items as JsonSchema);
  delete level.required;
  return json;
}

interface DerivedInput {
  schema: JsonSchema;
  bindings: Record<string, ArgBinding>;
}

function inputSchema(
  tool: string,
  route: AppRoute,
  fields: FieldSelection | undefined,
  messageWindow: boolean,
): DerivedInput {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const defs: Record<string, JsonSchema> = {};
  const bindings: Record<string, ArgBinding> = {};
  const add = (part: ArgBinding['part'], schema: unknown, rename: (key: string) => string) => {
    if (!(schema instanceof z.ZodType)) return;
    const json = toJsonSchema(schema, 'input');
    Object.assign(defs, json.$defs ?? {});
    const parts = objectParts(json);
    for (const [key, property] of Object.entries(parts.properties)) {
      const arg = rename(key);
      const taken = bindings[arg];
      if (taken) throw new Error(`Tool ${tool}: argument ${arg} is both in ${taken.part} and ${part}`);
      bindings[arg] = { part, key };
      properties[arg] = part === 'query' ? queryProperty(key, property) : property;
      if (parts.required.includes(key)) required.push(arg);
    }
  };
  add('params', route.pathParams, argName);
  add('query', route.query, (key) => key);
  if (route.method !== 'GET' && 'body' in route && route.body !== ContractNoBody) {
    add('body', route.body, (key) => key);
  }
  if (fields) {
    if (bindings.fields) throw new Error(`Tool ${tool}: argument fields is taken by ${bindings.fields.part}`);
    properties.fields = fieldsProperty(fields);
  }
  if (messageWindow) Object.assign(properties, MESSAGE_WINDOW_ARGUMENTS);
  const schema: JsonSchema = { type: 'object', properties };
  if (required.length > 0) schema.required = required;
  schema.additionalProperties = false;
  if (Object.keys(defs).length > 0) schema.$defs = defs;
  return { schema, bindings };
}

function fieldsProperty(fields: FieldSelection): JsonSchema {
  const { summary, detail } = fields;
  const more = detail ? `, or call ${detail} for one item in full` : '';
  const description = summary
    ? `Return only these fields of each item. Default: the summary (${summary.join(', ')}); for another field, list it with the summary fields you need${more}.`
    : `Return only these fields${fields.target === 'items' ? ' of each item' : ''} (default: all).`;
  return { type: 'array', items: { type: 'string', enum: [...fields.names] }, minItems: 1, description };
}

/** `limit` advertises the MCP default; boolean flags are shown as booleans (the text forms still pass). */
function queryProperty(key: string, property: JsonSchema): JsonSchema {
  if (key === 'limit') {
    return {
      ...property,
      default: DEFAULT_LIST_LIMIT,
      description: `Page size, 1 to 100 (default ${DEFAULT_LIST_LIMIT}).`,
    };
  }
  const variants = property.anyOf;
  if (Array.isArray(variants) && variants.some((v) => (v as JsonSchema).type === 'boolean')) {
    const { anyOf: _anyOf, ...rest } = property;
    return { ...rest, type: 'boolean' };
  }
  return property;
}
