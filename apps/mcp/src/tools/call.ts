import type { CustomerApiClient } from '@customer-api/client';
import { contract } from '@customer-api/contract';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { AppRoute } from '@ts-rest/core';
import type { z } from 'zod';
import { type ArgBinding, DEFAULT_LIST_LIMIT, type ToolDefinition } from './derive.js';
import { type ArgumentIssue, argumentError, errorResult, toErrorObject } from './errors.js';
import { DEFAULT_MAX_RESULT_BYTES, fitResult, selectFields, type Truncation } from './result.js';

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

interface Request {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: Record<string, unknown> | undefined;
}

type Method = (
  args: Partial<Request>,
  options: { signal?: AbortSignal },
) => Promise<{ data: unknown; status: number }>;

function issue(path: string[], message: string): ArgumentIssue {
  return { code: 'validation_failed', message, path };
}

/** Splits the flat arguments into path, query and body, and checks them with the contract's schemas. */
export function prepareRequest(
  tool: ToolDefinition,
  args: unknown,
): { request: Request; fields?: string[] } | { issues: ArgumentIssue[] } {
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    return { issues: [issue([], 'Arguments must be an object')] };
  }
  const request: Request = { params: {}, query: {}, body: undefined };
  const issues: ArgumentIssue[] = [];
  let fields: string[] | undefined;
  for (const [name, value] of Object.entries(args ?? {})) {
    if (value === undefined) continue;
    const binding = tool.bindings[name];
    if (name === 'fields' && tool.fields && !binding) {
      const valid =
        Array.isArray(value) && value.length > 0 && value.every((f) => tool.fields?.names.includes(f));
      if (valid) fields = value as string[];
      else issues.push(issue(['fields'], `Must be a non-empty list of: ${tool.fields.names.join(', ')}`));
    } else if (!binding) {
      const known = [...Object.keys(tool.bindings), ...(tool.fields ? ['fields'] : [])];
      issues.push(
        issue([name], `Unknown argument; ${tool.name} takes ${known.join(', ') || 'no arguments'}`),
      );
    } else {
      if (binding.part === 'body') request.body ??= {};
      (request[binding.part] as Record<string, unknown>)[binding.key] = value;
    }
  }
  if (tool.meta.paginated && request.query.limit === undefined) request.query.limit = DEFAULT_LIST_LIMIT;
  issues.push(...checkParts(tool, request));
  return issues.length > 0 ? { issues } : { request, fields };
}

function checkParts(tool: ToolDefinition, request: Request): ArgumentIssue[] {
  const route = contract[tool.operation] as AppRoute;
  const argOf = (part: ArgBinding['part'], key: string) =>
    Object.entries(tool.bindings).find(([, b]) => b.part === part && b.key === key)?.[0] ?? key;
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
  const { params, query, body } = prepared.request;
  let response: { data: unknown; status: number };
  try {
    response = await method({ params, query, ...(body ? { body } : {}) }, { signal: context.signal });
  } catch (error) {
    const object = toErrorObject(error, context.client.baseUrl);
    if (object.code === 'MCP_SERVER_ERROR' || object.code === 'CONNECTION_ERROR')
      context.onUnexpectedError?.(error);
    return errorResult(tool, object);
  }
  return successResult(tool, response, prepared.fields, context.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES);
}

function successResult(
  tool: ToolDefinition,
  response: { data: unknown; status: number },
  fields: string[] | undefined,
  maxBytes: number,
): CallToolResult {
  const selected = fields && tool.fields ? selectFields(response.data, tool.fields, fields) : response.data;
  const fitted = fitResult(selected, maxBytes, tool.meta.paginated);
  if (!fitted) {
    return errorResult(tool, {
      code: 'RESULT_TOO_LARGE',
      detail: `The result does not fit in ${maxBytes} bytes even when cut down.`,
    });
  }
  const notes = [
    replayNote(tool, response.status),
    pagingNote(tool, fitted.data),
    truncationNote(tool, fitted.truncation, maxBytes),
  ];
  const note = notes.filter(Boolean).join('\n');
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(fitted.data) }];
  if (note) content.push({ type: 'text', text: note });
  return { content, structuredContent: fitted.data as Record<string, unknown> };
}

/** An operation answering 200 where it usually creates (201) has replayed an earlier call. */
function replayNote(tool: ToolDefinition, status: number): string {
  const responses = (contract[tool.operation] as AppRoute).responses as Record<number, unknown>;
  return status === 200 && responses[201] !== undefined
    ? 'Replay: this idempotencyKey was used before, so the earlier entry is returned and nothing new was created.'
    : '';
}

function pagingNote(tool: ToolDefinition, data: unknown): string {
  if (!tool.meta.paginated) return '';
  const page = data as {
    items?: unknown[];
    hasMore?: boolean;
    nextCursor?: string | null;
    totalCount?: number;
  };
  const shown = `${page.items?.length ?? 0} of ${page.totalCount ?? '?'} items.`;
  if (!page.hasMore || !page.nextCursor) return `Showing ${shown} This is the last page.`;
  return `Showing ${shown} More: call ${tool.name} again with the same arguments and cursor="${page.nextCursor}".`;
}

function truncationNote(tool: ToolDefinition, truncation: Truncation | undefined, maxBytes: number): string {
  if (!truncation) return '';
  const lines = [`Result cut to fit ${maxBytes} bytes:`];
  for (const { path, kept, total, from } of truncation.arrays) {
    const which = from === 'end' ? 'first' : 'last';
    lines.push(`- ${path || 'result'}: ${which} ${kept} of ${total} shown.`);
  }
  if (truncation.strings > 0)
    lines.push(`- ${truncation.strings} long text values shortened (they end with …).`);
  if (tool.meta.paginated && truncation.arrays.some((a) => a.path === 'items')) {
    const kept = truncation.arrays.find((a) => a.path === 'items')?.kept ?? 0;
    lines.push(
      `nextCursor continues after the omitted items: to read them, repeat the call with the same cursor and limit=${Math.max(kept, 1)}.`,
    );
  }
  lines.push(
    tool.fields ? 'Select fewer fields (fields argument) to see more.' : 'Ask for less to see more.',
  );
  return lines.join('\n');
}
