import type { CustomerApiClient } from '@customer-api/client';
import {
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  ResourceTemplate,
} from '@modelcontextprotocol/server';
import { toErrorObject } from './tools/errors.js';

/** URI template of a page resource. */
export const PAGE_URI = 'customer-api://pages/{pageId}';
/** URI template of an audience's message history. */
export const AUDIENCE_MESSAGES_URI = 'customer-api://pages/{pageId}/audiences/{audienceId}/messages';

const LISTED_PAGES = 50;

type Variables = Record<string, string | string[]>;

function one(variables: Variables, name: string): string {
  const value = variables[name];
  return decodeURIComponent((Array.isArray(value) ? value[0] : value) ?? '');
}

/** API failures become JSON-RPC errors carrying the API's error object as `data`. */
async function fetchJson(
  uri: URL,
  client: CustomerApiClient,
  load: () => Promise<unknown>,
): Promise<ReadResourceResult> {
  try {
    const data = await load();
    return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(data) }] };
  } catch (error) {
    const object = toErrorObject(error, client.baseUrl);
    // The 2026-07-28 revision answers an unknown resource with -32602 on every era.
    const code =
      object.code === 'NOT_FOUND' ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError;
    throw new ProtocolError(code, `${object.code}: ${object.detail}`, { uri: uri.href, ...object });
  }
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

function registerPages(mcp: McpServer, client: CustomerApiClient, listable: boolean): void {
  const list = listable
    ? async () => {
        const page = await client.listPages({ query: { limit: LISTED_PAGES } });
        const resources = page.items.map((p) => ({
          uri: PAGE_URI.replace('{pageId}', encodeURIComponent(p.pageId)),
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
    fetchJson(uri, client, () => client.getPage({ params: { page_id: one(variables, 'pageId') } })),
  );
}

function registerMessages(mcp: McpServer, client: CustomerApiClient): void {
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
    description:
      "An audience's conversation (messages oldest first), current context and pending changes, as JSON.",
    mimeType: 'application/json',
  };
  mcp.registerResource('audience-messages', template, metadata, (uri, variables) =>
    fetchJson(uri, client, () =>
      client.getAudienceMessages({
        params: { page_id: one(variables, 'pageId'), audience_id: one(variables, 'audienceId') },
      }),
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
 * `get_audience_messages`), so the safety switches cover resources too.
 */
export function registerResources(
  mcp: McpServer,
  client: CustomerApiClient,
  enabled: ReadonlySet<string>,
): void {
  if (enabled.has('get_page')) registerPages(mcp, client, enabled.has('list_pages'));
  if (enabled.has('get_audience_messages')) registerMessages(mcp, client);
}
