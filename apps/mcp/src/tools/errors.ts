import { ConnectionError, CustomerApiError, TimeoutError } from '@customer-api/client';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ArgBinding, ToolDefinition } from './derive.js';
import { preconditionHint } from './etag.js';

/** One problem with a tool's arguments, in the API's validation issue shape. */
export interface ArgumentIssue {
  code: 'validation_failed';
  message: string;
  /** Starts with the tool argument's name. */
  path: string[];
}

/** The error object of a failure, as put into an error result's text. */
export type ErrorObject = { code: string; detail: string } & Record<string, unknown>;

const HINTS: Record<string, string> = {
  VALIDATION_ERROR: 'Fix the arguments listed in details and call again.',
  UNAUTHORIZED:
    'The API key is missing or invalid. Retrying will not help: ask the user to configure a valid key (CUSTOMER_API_KEY for stdio, the x-api-key header for HTTP).',
  FORBIDDEN:
    'This API key may not do this (for example a read-only key writing). Do not retry; tell the user.',
  NOT_FOUND:
    'An id does not exist, is not under the given parent, or belongs to another tenant. Look the ids up again with a list_* or get_* tool; do not guess ids.',
  CONFLICT:
    'The current state does not allow this (see detail). Read the resource again before deciding what to do; repeating the same call fails the same way.',
  RATE_LIMITED: 'Too many requests. Wait details.retryAfter seconds before calling again.',
  INTERNAL: 'The API failed unexpectedly. Try once more later; if it persists, report the requestId.',
  SERVICE_UNAVAILABLE: 'The API is temporarily unavailable. Wait a few seconds and try again.',
  UNEXPECTED_RESPONSE:
    "The answer was not the API's error object (a proxy or a misconfigured base URL?). Tell the user, quoting the status.",
  CONNECTION_ERROR:
    'The Customer API could not be reached. Do not retry in a loop: ask the user to check that the API runs and that the base URL is right.',
  TIMEOUT: 'The API did not answer in time. Try once more; for lists, a smaller limit helps.',
  RESULT_TOO_LARGE: 'Ask for less: a smaller limit, or fields to return only what you need.',
  NOT_CONFIRMED:
    'The user declined or dismissed the confirmation. Do not retry on your own; ask the user whether they still want it.',
  MCP_SERVER_ERROR: 'The MCP server failed unexpectedly. Tell the user; retrying may not help.',
};

const PART_OF_FIELD: Record<string, ArgBinding['part']> = { path: 'params', query: 'query', body: 'body' };

/** Tool arguments named in a validation error (`page_id` in a path issue is the argument `pageId`). */
function argumentHints(tool: ToolDefinition, details: unknown): string {
  if (!Array.isArray(details)) return '';
  const parts: string[] = [];
  for (const detail of details as Array<{
    field?: string;
    issues?: Array<{ message?: string; path?: string[] }>;
  }>) {
    const part = PART_OF_FIELD[detail.field ?? ''];
    for (const issue of detail.issues ?? []) {
      const [key, ...rest] = issue.path ?? [];
      const bound = Object.entries(tool.bindings).find(([, b]) => b.part === part && b.key === key)?.[0];
      const where = [bound ?? key, ...rest].filter((p) => p !== undefined).join('.') || detail.field;
      parts.push(`${where}: ${issue.message}`);
    }
  }
  return parts.length > 0 ? ` Arguments to fix: ${parts.join('; ')}.` : '';
}

/** The error object of anything a tool call can throw; unknown failures keep their message out. */
export function toErrorObject(error: unknown, baseUrl: string): ErrorObject {
  // Connection errors are CustomerApiErrors too (status 0): name the server they could not reach.
  if (error instanceof TimeoutError) {
    return { code: 'TIMEOUT', detail: `${error.message} (${baseUrl})`, timeoutMs: error.timeoutMs };
  }
  if (error instanceof ConnectionError) {
    return { code: 'CONNECTION_ERROR', detail: `${error.message} (${baseUrl})`, errno: error.errno };
  }
  if (error instanceof CustomerApiError) {
    const body = error.body;
    if (typeof body === 'object' && body !== null && !Array.isArray(body) && 'code' in body) {
      return { ...(body as Record<string, unknown>), code: error.code, detail: error.detail };
    }
    return {
      code: error.code,
      status: error.status,
      detail: error.detail,
      requestId: error.requestId,
      body: typeof body === 'string' ? body.slice(0, 500) : body,
    };
  }
  return {
    code: 'MCP_SERVER_ERROR',
    detail: 'Unexpected failure in the MCP server; it is logged on its stderr.',
  };
}

/**
 * An `isError` result a model can act on: one line naming the failure, one saying what to do,
 * then the whole error object (code, detail, requestId, details) as JSON. Never `structuredContent`.
 */
export function errorResult(tool: ToolDefinition, error: ErrorObject): CallToolResult {
  const status = typeof error.status === 'number' ? ` (${error.status})` : '';
  const hint =
    error.code === 'PRECONDITION_FAILED'
      ? preconditionHint(tool)
      : (HINTS[error.code] ?? HINTS.MCP_SERVER_ERROR) +
        (error.code === 'VALIDATION_ERROR' ? argumentHints(tool, error.details) : '');
  const text = `${tool.name} failed: ${error.code}${status}: ${error.detail}\nWhat to do: ${hint}\nError object: ${JSON.stringify(error)}`;
  return { isError: true, content: [{ type: 'text', text }] };
}

/** The error object of arguments rejected before anything is sent to the API. */
export function argumentError(tool: ToolDefinition, issues: ArgumentIssue[]): ErrorObject {
  return {
    code: 'VALIDATION_ERROR',
    detail: `Invalid arguments for ${tool.name}; nothing was sent to the API.`,
    details: [{ field: 'arguments', issues }],
  };
}
