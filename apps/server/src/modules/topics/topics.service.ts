import type {
  CreateTopicBodySchema,
  Paginated,
  PaginationQuery,
  Topic,
  TopicEntry,
  UpdateTopicBodySchema,
} from '@customer-api/contract';
import type { z } from 'zod';
import type { Handle, Tx } from '../../db/port.js';
import { type Clock, iso } from '../../lib/clock.js';
import { adjustCounter, readCounter } from '../../lib/counters.js';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import type { IdSource } from '../../lib/ids.js';
import { type CursorCodec, type KeysetPosition, keysetPage } from '../../lib/pagination.js';
import * as repo from './topics.repo.js';

/** Dependencies of topic operations. */
export interface TopicsDeps {
  db: Handle;
  clock: Clock;
  ids: IdSource;
  cursors: CursorCodec;
}

/** Counter scope of a tenant's topics (listTopics' totalCount, default topic included). */
const TOPICS_COUNTER = 'topics';
/** Title of the default topic every tenant has. */
export const DEFAULT_TOPIC_TITLE = 'General';

function toApiEntry(row: repo.TopicEntryRow): TopicEntry {
  return {
    topicEntryId: row.id,
    topicId: row.topicId,
    sortOrder: row.sortOrder,
    content: { type: String(row.content.type ?? 'text'), content: String(row.content.content ?? '') },
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

function toApiTopic(row: repo.TopicRow, entries: repo.TopicEntryRow[]): Topic {
  return {
    topicId: row.id,
    title: row.title,
    purpose: row.purpose,
    sortOrder: row.sortOrder,
    isDefault: row.isDefault,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    entries: entries.filter((e) => e.topicId === row.id).map(toApiEntry),
  };
}

async function withEntries(db: Handle, tenantId: string, rows: repo.TopicRow[]): Promise<Topic[]> {
  const entries = await repo.listEntries(
    db,
    tenantId,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toApiTopic(r, entries));
}

/**
 * Makes sure the tenant has its default topic (created on first use, sortOrder 0, so that it
 * is older than and listed before every topic the tenant creates). Concurrent first uses create
 * one: a partial unique index allows one default per tenant.
 */
export async function ensureDefaultTopic(deps: TopicsDeps, tenantId: string): Promise<void> {
  if (await repo.hasDefaultTopic(deps.db, tenantId)) return;
  await deps.db.transaction(async (tx) => {
    const now = deps.clock();
    const inserted = await repo.insertDefaultTopicIfMissing(tx, {
      id: deps.ids('topic'),
      tenantId,
      title: DEFAULT_TOPIC_TITLE,
      purpose: null,
      sortOrder: 0,
      createdAt: now,
      updatedAt: now,
    });
    if (inserted) await adjustCounter(tx, tenantId, TOPICS_COUNTER, 1);
  });
}

const invalidCursor = () =>
  ValidationError.of(
    'query',
    "The cursor is not valid for this request; take it from the previous page's nextCursor.",
    ['cursor'],
  );

/** Topics page in `(sortOrder, id)` order; the signed cursor carries both as `<sortOrder>:<id>`. */
function topicPosition({ id }: KeysetPosition): repo.TopicPosition {
  const match = /^(\d+):(.+)$/.exec(id);
  if (!match?.[1] || !match[2]) throw invalidCursor();
  return { sortOrder: Number(match[1]), id: match[2] };
}

/** Lists a tenant's topics with their entries, by sortOrder then creation; the default topic included. */
export async function listTopics(
  deps: TopicsDeps,
  tenantId: string,
  query: PaginationQuery,
): Promise<Paginated<Topic>> {
  await ensureDefaultTopic(deps, tenantId);
  const page = await keysetPage({
    cursors: deps.cursors,
    binding: { tenantId, operation: 'listTopics' },
    query,
    fetch: (take, after) => repo.listTopics(deps.db, tenantId, take, after && topicPosition(after)),
    count: () => readCounter(deps.db, tenantId, TOPICS_COUNTER),
    map: (row) => row,
    position: (row) => ({ createdAt: row.createdAt, id: `${row.sortOrder}:${row.id}` }),
  });
  return { ...page, items: await withEntries(deps.db, tenantId, page.items) };
}

/** Creates a topic (after the tenant's default topic, which is created first if missing). */
export async function createTopic(
  deps: TopicsDeps,
  tenantId: string,
  body: z.output<typeof CreateTopicBodySchema>,
): Promise<Topic> {
  await ensureDefaultTopic(deps, tenantId);
  const row = await deps.db.transaction(async (tx) => {
    const now = deps.clock();
    const inserted = await repo.insertTopic(tx, {
      id: deps.ids('topic'),
      tenantId,
      title: body.title,
      purpose: body.purpose ?? null,
      sortOrder: body.sortOrder ?? 0,
      isDefault: false,
      createdAt: now,
      updatedAt: now,
    });
    await adjustCounter(tx, tenantId, TOPICS_COUNTER, 1);
    return inserted;
  });
  return toApiTopic(row, []);
}

/** Reads one topic with its entries. */
export async function getTopic(deps: TopicsDeps, tenantId: string, topicId: string): Promise<Topic> {
  const row = await repo.findTopic(deps.db, tenantId, topicId);
  if (!row) throw new NotFoundError(`Topic ${topicId} not found.`);
  const [topic] = await withEntries(deps.db, tenantId, [row]);
  return topic as Topic;
}

/** Changes a topic's title, sortOrder or purpose. Renaming the default topic is 409 CONFLICT. */
export async function updateTopic(
  deps: TopicsDeps,
  tenantId: string,
  topicId: string,
  body: z.output<typeof UpdateTopicBodySchema>,
): Promise<Topic> {
  const row = await deps.db.transaction(async (tx) => {
    const topic = await repo.findTopic(tx, tenantId, topicId, true);
    if (!topic) throw new NotFoundError(`Topic ${topicId} not found.`);
    if (topic.isDefault && body.title !== undefined && body.title !== topic.title) {
      throw new ConflictError(`Topic ${topicId} is the default topic; its title cannot be changed.`);
    }
    return repo.updateTopic(tx, tenantId, topicId, {
      ...(body.title === undefined ? {} : { title: body.title }),
      ...(body.sortOrder === undefined ? {} : { sortOrder: body.sortOrder }),
      ...(body.purpose === undefined ? {} : { purpose: body.purpose }),
      updatedAt: deps.clock(),
    });
  });
  const [topic] = await withEntries(deps.db, tenantId, [row]);
  return topic as Topic;
}

/** Locks a tenant's topic until `tx` ends, when it exists (`If-Match`, `http/conditional.ts`). */
export async function lockTopic(tx: Tx, tenantId: string, topicId: string): Promise<void> {
  await repo.findTopic(tx, tenantId, topicId, true);
}
