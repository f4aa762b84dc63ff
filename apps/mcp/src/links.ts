import type { ResourceLink } from '@modelcontextprotocol/server';
import { audienceMessagesUri, pageUri } from './resources.js';

/** The first protocol revision whose tool results may carry `resource_link` content blocks. */
export const RESOURCE_LINKS_SINCE = '2025-06-18';

/** Whether a revision (`YYYY-MM-DD`) knows `resource_link`: 2025-06-18 and later do, 2025-03-26 does not. */
export function allowsResourceLinks(revision: string): boolean {
  return revision >= RESOURCE_LINKS_SINCE;
}

type Fields = Record<string, unknown>;

function text(record: Fields, key: string): string | undefined {
  const value = record[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function pageLink(page: Fields): ResourceLink | undefined {
  const pageId = text(page, 'pageId');
  if (!pageId) return undefined;
  const title = text(page, 'title');
  const link: ResourceLink = {
    type: 'resource_link',
    uri: pageUri(pageId),
    name: text(page, 'name') ?? pageId,
  };
  return { ...link, ...(title ? { title } : {}), mimeType: 'application/json' };
}

function messagesLink(audience: Fields): ResourceLink | undefined {
  const pageId = text(audience, 'pageId');
  const audienceId = text(audience, 'audienceId');
  if (!pageId || !audienceId) return undefined;
  const name = `${text(audience, 'effectiveName') ?? audienceId} messages`;
  return {
    type: 'resource_link',
    uri: audienceMessagesUri(pageId, audienceId),
    name,
    mimeType: 'application/json',
  };
}

/**
 * The tools whose results name records that are resources: the resource's reading tool must be
 * enabled (resources are registered only then), `items` says the records are a page's items.
 */
const LINKED: Readonly<Record<string, { resource: string; items: boolean; link: typeof pageLink }>> = {
  list_pages: { resource: 'get_page', items: true, link: pageLink },
  list_audiences: { resource: 'get_audience_messages', items: true, link: messagesLink },
  get_audience: { resource: 'get_audience_messages', items: false, link: messagesLink },
};

/**
 * `resource_link` content blocks for the records a tool result shows that have a
 * `customer-api://` resource this server serves (a page; an audience's message history). A
 * record whose ids were left out by `fields` gets no link.
 */
export function resourceLinks(
  tool: string,
  structured: unknown,
  enabled: ReadonlySet<string>,
): ResourceLink[] {
  const linked = LINKED[tool];
  if (!linked || !enabled.has(linked.resource) || typeof structured !== 'object' || structured === null)
    return [];
  const items = (structured as { items?: unknown }).items;
  const records = linked.items ? (Array.isArray(items) ? items : []) : [structured];
  return records.flatMap((record) => {
    const link = typeof record === 'object' && record !== null ? linked.link(record as Fields) : undefined;
    return link ? [link] : [];
  });
}
