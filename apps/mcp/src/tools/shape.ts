import { contract } from '@customer-api/contract';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { AppRoute } from '@ts-rest/core';
import type { ToolDefinition } from './derive.js';
import { argumentError, errorResult } from './errors.js';
import { etagNote } from './etag.js';
import { continueAfter, type MessageWindow, windowMessages } from './messages.js';
import { fitResult, selectFields, type Truncation } from './result.js';

/** An API answer: the success body, its status and the resource's tag when it has one. */
export interface ApiResponse {
  data: unknown;
  status: number;
  etag?: string | undefined;
}

/** How {@link shapeResult} shapes one success body. */
export interface ShapeOptions {
  /** The fields to keep (a list's summary fields when the caller named none). */
  fields?: readonly string[];
  /** For message histories: how many messages older than `before` to show. */
  window?: { limit: number; before?: string };
  maxBytes: number;
  /** Calls the operation again with another `limit` (lists only); an error result on failure. */
  requery: (limit: number) => Promise<ApiResponse | CallToolResult>;
}

type Fitted = { data: unknown; truncation?: Truncation };

/** The list a result is cut along, at element boundaries. */
function listKeyOf(tool: ToolDefinition): string | undefined {
  if (tool.meta.paginated) return 'items';
  return tool.messageWindow ? 'messages' : undefined;
}

function cutOf(fitted: Fitted, key: string | undefined) {
  return fitted.truncation?.arrays.find((a) => a.path === key);
}

/**
 * Turns a success body into a tool result within `maxBytes`: fields selected, histories
 * windowed, lists cut only at item boundaries. A page of results that had to be cut is read
 * again with `limit` set to the items that fit, so its `nextCursor` continues right after the
 * last item shown and no item is ever skipped.
 */
export async function shapeResult(
  tool: ToolDefinition,
  response: ApiResponse,
  options: ShapeOptions,
): Promise<CallToolResult> {
  const key = listKeyOf(tool);
  let data = response.data;
  if (options.window) {
    const windowed = windowMessages(data, options.window.limit, options.window.before);
    if (!windowed) {
      const message = 'No message of this history has this messageId; omit before for the newest messages';
      return errorResult(
        tool,
        argumentError(tool, [{ code: 'validation_failed', message, path: ['before'] }]),
      );
    }
    data = windowed;
  }
  const etag = tool.meta.sendsEtag ? response.etag : undefined;
  let fitted = fit(tool, data, options, etag);
  let refitted = false;
  for (let cut = cutOf(fitted, key); tool.meta.paginated && cut && cut.kept < cut.total; ) {
    const again = await options.requery(cut.kept);
    if ('content' in again) return again;
    fitted = fit(tool, again.data, options);
    refitted = true;
    cut = cutOf(fitted, key);
  }
  if (!fitted.data) {
    return errorResult(tool, {
      code: 'RESULT_TOO_LARGE',
      detail: `The result does not fit in ${options.maxBytes} bytes even when cut down.`,
    });
  }
  if (tool.messageWindow) continueWindow(fitted, cutOf(fitted, key) !== undefined);
  const notes = [
    replayNote(tool, response.status),
    etagNote(tool, etag),
    pagingNote(tool, fitted.data, refitted ? options.maxBytes : undefined),
    summaryNote(tool, options.fields),
    windowNote(tool, fitted, options.maxBytes),
    truncationNote(tool, fitted.truncation, key, options.maxBytes),
  ];
  const note = notes.filter(Boolean).join('\n');
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(fitted.data) }];
  if (note) content.push({ type: 'text', text: note });
  return { content, structuredContent: fitted.data as Record<string, unknown> };
}

/**
 * Selects fields, adds the resource's `etag` whatever the selection, and fits the cap; `data` is
 * `undefined` when nothing makes it fit.
 */
function fit(tool: ToolDefinition, data: unknown, options: ShapeOptions, etag?: string): Fitted {
  const { fields } = options;
  const names = fields && tool.messageWindow ? [...fields, 'totalMessages', 'nextBefore'] : fields;
  const selected = names && tool.fields ? selectFields(data, tool.fields, names) : data;
  const tagged = etag !== undefined && isObject(selected) ? { ...selected, etag } : selected;
  return fitResult(tagged, options.maxBytes, listKeyOf(tool)) ?? { data: undefined };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Messages cut for size: `nextBefore` continues after the oldest message still shown. */
function continueWindow(fitted: Fitted, cut: boolean): void {
  const history = fitted.data as Partial<MessageWindow>;
  if (!cut || !Array.isArray(history.messages)) return;
  history.nextBefore = continueAfter(history.messages, true);
}

/** An operation answering 200 where it usually creates (201) has replayed an earlier call. */
function replayNote(tool: ToolDefinition, status: number): string {
  const responses = (contract[tool.operation] as AppRoute).responses as Record<number, unknown>;
  return status === 200 && responses[201] !== undefined
    ? 'Replay: this idempotencyKey was used before, so the earlier entry is returned and nothing new was created.'
    : '';
}

function pagingNote(tool: ToolDefinition, data: unknown, refittedTo: number | undefined): string {
  if (!tool.meta.paginated) return '';
  const page = data as {
    items?: unknown[];
    hasMore?: boolean;
    nextCursor?: string | null;
    totalCount?: number;
  };
  const count = page.items?.length ?? 0;
  const shown = `Showing ${count} of ${page.totalCount ?? '?'} items.`;
  const fitted = refittedTo
    ? ` Only ${count} items fit in ${refittedTo} bytes, so this page ends there.`
    : '';
  if (!page.hasMore || !page.nextCursor) return `${shown}${fitted} This is the last page.`;
  return `${shown}${fitted} More: call ${tool.name} again with the same arguments and cursor="${page.nextCursor}".`;
}

/** Says which fields a summary left out and how to get them. */
function summaryNote(tool: ToolDefinition, fields: readonly string[] | undefined): string {
  const selection = tool.fields;
  if (!selection?.summary || fields !== selection.summary) return '';
  const left = selection.names.filter((name) => !fields.includes(name));
  if (left.length === 0) return '';
  const detail = selection.detail ? `, or ${selection.detail} for one item` : '';
  return `Items are summaries without ${left.join(', ')}: name the fields you need in fields${detail}.`;
}

function windowNote(tool: ToolDefinition, fitted: Fitted, maxBytes: number): string {
  const history = fitted.data as Partial<MessageWindow>;
  if (!tool.messageWindow || !Array.isArray(history.messages)) return '';
  const count = history.messages.length;
  const cut = fitted.truncation?.arrays.some((a) => a.path === 'messages');
  const lines = [
    `Showing ${count} of ${history.totalMessages ?? '?'} messages, newest first.${cut ? ` Only ${count} fit in ${maxBytes} bytes.` : ''}`,
  ];
  lines.push(
    history.nextBefore
      ? `Older: call ${tool.name} again with the same ids and before="${history.nextBefore}".`
      : 'No older messages.',
  );
  return lines.join(' ');
}

function truncationNote(
  tool: ToolDefinition,
  truncation: Truncation | undefined,
  listKey: string | undefined,
  maxBytes: number,
): string {
  const arrays = (truncation?.arrays ?? []).filter((a) => a.path !== listKey);
  if (arrays.length === 0 && !truncation?.strings) return '';
  const lines = [`Result cut to fit ${maxBytes} bytes:`];
  for (const { path, kept, total, from } of arrays) {
    const which = from === 'end' ? 'first' : 'last';
    lines.push(`- ${path || 'result'}: ${which} ${kept} of ${total} shown.`);
  }
  if (truncation?.strings)
    lines.push(`- ${truncation.strings} long text values shortened (they end with …).`);
  if (tool.messageWindow) lines.push('Ask for fewer messages (limit) to see more of each.');
  else
    lines.push(
      tool.fields ? 'Select fewer fields (fields argument) to see more.' : 'Ask for less to see more.',
    );
  return lines.join('\n');
}
