import type { CustomerApiClient } from '@customer-api/client';
import {
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  ResourceTemplate,
} from '@modelcontextprotocol/server';
import { toErrorObject } from './tools/errors.js';
import {
  continueAfter,
  DEFAULT_MESSAGES_LIMIT,
  type MessageWindow,
  windowMessages,
} from './tools/messages.js';
import { DEFAULT_MAX_RESULT_BYTES, fitResult } from './tools/result.js';

/** URI template of a page resource. */
export const PAGE_URI = 'customer-api://pages/{pageId}';
/** URI template of an audience's message history. */
export const AUDIENCE_MESSAGES_URI = 'customer-api://pages/{pageId}/audiences/{audienceId}/messages';

/** The URI of one page's resource. */
export function pageUri(pageId: string): string {
  return PAGE_URI.replace('{pageId}', encodeURIComponent(pageId));
}

/** The URI of one audience's message history. */
export function audienceMessagesUri(pageId: string, audienceId: string): string {
  return AUDIENCE_MESSAGES_URI.replace('{pageId}', encodeURIComponent(pageId)).replace(
    '{audienceId}',
    encodeURIComponent(audienceId),
  );
}

const LISTED_PAGES = 50;

type Variables = Record<string, string | string[]>;

function one(variables: Variables, name: string): string {
  const value = variables[name];
  return decodeURIComponent((Array.isArray(value) ? value[0] : value) ?? '');
}

/**
 * Caps a resource's JSON as tool results are capped: a history shows its newest messages first
 * (cut at whole messages, `nextBefore` naming where `get_audience_messages` continues).
 */
function capped(data: unknown, maxBytes: number, history: boolean): unknown {
  const shown = history ? windowMessages(data, DEFAULT_MESSAGES_LIMIT) : data;
  const fitted = fitResult(shown, maxBytes, history ? 'messages' : undefined);
  if (!fitted)
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `The resource does not fit in ${maxBytes} bytes`,
    );
  const window = fitted.data as MessageWindow;
  if (history && fitted.truncation?.arrays.some((a) => a.path === 'messages'))
    window.nextBefore = continueAfter(window.messages, true);
  return fitted.data;
}

/** API failures become JSON-RPC errors carrying the API's error object as `data`. */
async function fetchJson(
  uri: URL,
  client: CustomerApiClient,
  load: () => Promise<unknown>,
  cap: (data: unknown) => unknown,
): Promise<ReadResourceResult> {
  let data: unknown;
  try {
    data = await load();
  } catch (error) {
    const object = toErrorObject(error, client.baseUrl);
    // The 2026-07-28 revision answers an unknown resource with -32602 on every era.
    const code =
      object.code === 'NOT_FOUND' ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError;
    throw new ProtocolError(code, `${object.code}: ${object.detail}`, { uri: uri.href, ...object });
  }
  return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(cap(data)) }] };
}

/** Completion is a convenience: a failed lookup offers nothing rather than an error. */
function orNothing(values: Promise<string[]>): Promise<string[]> {
  return values.catch(() => []);
}

async function completePageIds(client: CustomerApiClient, prefix: string): Promise<string[]> {
  const page = await client.listPages({ query: { limit: 100 } });
  return page.items.map((p) => p.pageId).filter((id) => id.startsWith(prefix));
}

async function completeAudienceIds(
  client: CustomerApiClient,
  prefix: string,
  pageId?: string,
): Promise<string[]> {
  if (!pageId) return [];
  const page = await client.listAudiences({ params: { page_id: pageId }, query: { limit: 100 } });
  return page.items.map((a) => a.audienceId).filter((id) => id.startsWith(prefix));
}

function registerPages(mcp: McpServer, client: CustomerApiClient, listable: boolean, maxBytes: number): void {
  const list = listable
    ? async () => {
        const page = await client.listPages({ query: { limit: LISTED_PAGES } });
        const resources = page.items.map((p) => ({
          uri: pageUri(p.pageId),
          name: p.name,
          title: p.title,
          mimeType: 'application/json',
        }));
        return { resources };
      }
    : undefined;
  const template = new ResourceTemplate(PAGE_URI, {
    list,
    complete: { pageId: (value) => orNothing(completePageIds(client, value)) },
  });
  const metadata = {
    title: 'Page',
    description: `A page with its context, actions and metadata, as JSON. Lists the newest ${LISTED_PAGES} pages.`,
    mimeType: 'application/json',
  };
  mcp.registerResource('page', template, metadata, (uri, variables) =>
    fetchJson(
      uri,
      client,
      () => client.getPage({ params: { page_id: one(variables, 'pageId') } }),
      (data) => capped(data, maxBytes, false),
    ),
  );
}

function registerMessages(mcp: McpServer, client: CustomerApiClient, maxBytes: number): void {
  const template = new ResourceTemplate(AUDIENCE_MESSAGES_URI, {
    list: undefined,
    complete: {
      pageId: (value) => orNothing(completePageIds(client, value)),
      audienceId: (value, context) =>
        orNothing(completeAudienceIds(client, value, context?.arguments?.pageId)),
    },
  });
  const metadata = {
    title: 'Audience messages',
    description: `An audience's conversation (the newest ${DEFAULT_MESSAGES_LIMIT} messages, newest first; get_audience_messages with before=nextBefore reads older ones), current context and pending changes, as JSON.`,
    mimeType: 'application/json',
  };
  mcp.registerResource('audience-messages', template, metadata, (uri, variables) =>
    fetchJson(
      uri,
      client,
      () =>
        client.getAudienceMessages({
          params: { page_id: one(variables, 'pageId'), audience_id: one(variables, 'audienceId') },
        }),
      (data) => capped(data, maxBytes, true),
    ),
  );
}

/** Whether {@link registerResources} registers anything for these enabled tools. */
export function hasResources(enabled: ReadonlySet<string>): boolean {
  return enabled.has('get_page') || enabled.has('get_audience_messages');
}

/**
 * Registers pages and audience message histories as resources an assistant can attach as
 * context, each only when the tool reading the same data is enabled (`get_page`,
 * `get_audience_messages`), so the safety switches cover resources too. Reads are capped at
 * `maxBytes` like tool results.
 */
export function registerResources(
  mcp: McpServer,
  client: CustomerApiClient,
  enabled: ReadonlySet<string>,
  maxBytes = DEFAULT_MAX_RESULT_BYTES,
): void {
  if (enabled.has('get_page')) registerPages(mcp, client, enabled.has('list_pages'), maxBytes);
  if (enabled.has('get_audience_messages')) registerMessages(mcp, client, maxBytes);
}
