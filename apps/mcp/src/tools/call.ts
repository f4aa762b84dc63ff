import type { CustomerApiClient } from '@customer-api/client';
import { contract } from '@customer-api/contract';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { AppRoute } from '@ts-rest/core';
import type { z } from 'zod';
import { type ArgBinding, DEFAULT_LIST_LIMIT, type ToolDefinition } from './derive.js';
import { type ArgumentIssue, argumentError, errorResult, toErrorObject } from './errors.js';
import { ifMatchOf } from './etag.js';
import { DEFAULT_MESSAGES_LIMIT, MAX_MESSAGES_LIMIT } from './messages.js';
import { decodeJsonArguments } from './portable.js';
import { DEFAULT_MAX_RESULT_BYTES } from './result.js';
import { shapeResult } from './shape.js';

/** What a tool call needs besides its arguments. */
export interface CallContext {
  /** The API client, carrying the caller's API key. */
  client: CustomerApiClient;
  /** Hard cap on a result's JSON, in bytes. */
  maxResultBytes?: number;
  /** Aborts the API request when the MCP request is cancelled. */
  signal?: AbortSignal;
  /** Receives failures that are not API errors (bugs, lost connections). */
  onUnexpectedError?: (error: unknown) => void;
}

/** Which messages of a history to show: `limit` older than `before`, newest first. */
interface Window {
  limit: number;
  before?: string;
}

interface Request {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: Record<string, unknown> | undefined;
}

type Method = (
  args: Partial<Request>,
  options: { signal?: AbortSignal; ifMatch?: string },
) => Promise<{ data: unknown; status: number; etag?: string | undefined }>;

function issue(path: string[], message: string): ArgumentIssue {
  return { code: 'validation_failed', message, path };
}

/** The name a caller uses for an argument: `payloadJson` for the contract's top-level `payload`. */
function advertised(tool: ToolDefinition, name: string): string {
  return tool.jsonArguments.find((j) => j.path.length === 0 && j.name === name)?.arg ?? name;
}

/** Splits the flat arguments into path, query and body, and checks them with the contract's schemas. */
export function prepareRequest(
  tool: ToolDefinition,
  args: unknown,
):
  | { request: Request; fields?: readonly string[]; window?: Window; ifMatch?: string }
  | { issues: ArgumentIssue[] } {
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    return { issues: [issue([], 'Arguments must be an object')] };
  }
  const request: Request = { params: {}, query: {}, body: undefined };
  const decoded = decodeJsonArguments(tool.jsonArguments, (args ?? {}) as Record<string, unknown>);
  const issues: ArgumentIssue[] = decoded.issues.map((i) => issue(i.path, i.message));
  let fields: string[] | undefined;
  let ifMatch: string | undefined;
  const window: Window | undefined = tool.messageWindow ? { limit: DEFAULT_MESSAGES_LIMIT } : undefined;
  for (const [name, value] of Object.entries(decoded.args)) {
    if (value === undefined) continue;
    const binding = tool.bindings[name];
    if (window && (name === 'limit' || name === 'before') && !binding) {
      const problem = windowArgument(window, name, value);
      if (problem) issues.push(issue([name], problem));
    } else if (name === 'fields' && tool.fields && !binding) {
      const valid =
        Array.isArray(value) && value.length > 0 && value.every((f) => tool.fields?.names.includes(f));
      if (valid) fields = value as string[];
      else issues.push(issue(['fields'], `Must be a non-empty list of: ${tool.fields.names.join(', ')}`));
    } else if (name === 'expectedEtag' && tool.meta.ifMatch && !binding) {
      if (typeof value === 'string' && value.trim() !== '') ifMatch = ifMatchOf(value.trim());
      else issues.push(issue(['expectedEtag'], 'Must be the etag of your last read of this resource'));
    } else if (!binding) {
      const known = [
        ...Object.keys(tool.bindings).map((key) => advertised(tool, key)),
        ...(tool.fields ? ['fields'] : []),
        ...(window ? ['limit', 'before'] : []),
        ...(tool.meta.ifMatch ? ['expectedEtag'] : []),
      ];
      issues.push(
        issue([name], `Unknown argument; ${tool.name} takes ${known.join(', ') || 'no arguments'}`),
      );
    } else {
      if (binding.part === 'body') request.body ??= {};
      (request[binding.part] as Record<string, unknown>)[binding.key] = value;
    }
  }
  if (tool.meta.paginated && request.query.limit === undefined) request.query.limit = DEFAULT_LIST_LIMIT;
  // A value that did not decode is missing to the contract: report only why it did not decode.
  if (decoded.issues.length > 0) return { issues };
  issues.push(...checkParts(tool, request));
  // A list returns summary items unless the caller names its fields.
  if (issues.length > 0) return { issues };
  return { request, fields: fields ?? tool.fields?.summary, window, ...(ifMatch ? { ifMatch } : {}) };
}

/** `limit` and `before` of a message history; returns what is wrong, if anything. */
function windowArgument(window: Window, name: 'limit' | 'before', value: unknown): string | undefined {
  if (name === 'before') {
    if (typeof value !== 'string' || value === '')
      return 'Must be a messageId (nextBefore of a previous result)';
    window.before = value;
    return undefined;
  }
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > MAX_MESSAGES_LIMIT)
    return `Must be an integer from 1 to ${MAX_MESSAGES_LIMIT}`;
  window.limit = value as number;
  return undefined;
}

function checkParts(tool: ToolDefinition, request: Request): ArgumentIssue[] {
  const route = contract[tool.operation] as AppRoute;
  const argOf = (part: ArgBinding['part'], key: string) =>
    advertised(
      tool,
      Object.entries(tool.bindings).find(([, b]) => b.part === part && b.key === key)?.[0] ?? key,
    );
  const issues: ArgumentIssue[] = [];
  const check = (part: ArgBinding['part'], schema: unknown, value: unknown) => {
    const result = (schema as z.ZodType | undefined)?.safeParse?.(value);
    for (const problem of result?.success === false ? result.error.issues : []) {
      const [first, ...rest] = problem.path.map(String);
      const path = first === undefined ? [] : [argOf(part, first), ...rest];
      issues.push(issue(path, problem.message));
    }
  };
  check('params', route.pathParams, request.params);
  check('query', route.query, request.query);
  if (Object.values(tool.bindings).some((b) => b.part === 'body'))
    check('body', 'body' in route ? route.body : undefined, request.body ?? {});
  return issues;
}

/** Calls the tool's operation and turns the outcome into a tool result; never throws. */
export async function callTool(
  tool: ToolDefinition,
  args: unknown,
  context: CallContext,
): Promise<CallToolResult> {
  try {
    return await attempt(tool, args, context);
  } catch (error) {
    context.onUnexpectedError?.(error);
    return errorResult(tool, toErrorObject(error, context.client.baseUrl));
  }
}

async function attempt(tool: ToolDefinition, args: unknown, context: CallContext): Promise<CallToolResult> {
  const prepared = prepareRequest(tool, args);
  if ('issues' in prepared) return errorResult(tool, argumentError(tool, prepared.issues));
  const method = (context.client.withResponse as unknown as Record<string, Method>)[tool.operation] as Method;
  const send = async (request: Request) => {
    const { params, query, body } = request;
    try {
      // One client call per tool call: the client keeps its Idempotency-Key across its own retries.
      const options = { signal: context.signal, ...(prepared.ifMatch ? { ifMatch: prepared.ifMatch } : {}) };
      return await method({ params, query, ...(body ? { body } : {}) }, options);
    } catch (error) {
      const object = toErrorObject(error, context.client.baseUrl);
      if (object.code === 'MCP_SERVER_ERROR' || object.code === 'CONNECTION_ERROR')
        context.onUnexpectedError?.(error);
      return errorResult(tool, object);
    }
  };
  const response = await send(prepared.request);
  if ('content' in response) return response;
  return shapeResult(tool, response, {
    fields: prepared.fields,
    window: prepared.window,
    maxBytes: context.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
    // Reads again with a smaller limit, so that nextCursor continues right after the last item shown.
    requery: (limit) => send({ ...prepared.request, query: { ...prepared.request.query, limit } }),
  });
}
