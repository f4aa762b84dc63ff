import type { Handle, Tx } from '../../db/port.js';
import { accountActivity } from '../../db/schema/index.js';
import {
  columns,
  insertValues,
  int,
  json,
  nullable,
  raw,
  rowOf,
  sql,
  statement,
  text,
  timestamptz,
} from '../../db/sql.js';
import { type KeysetPosition, keysetAfter } from '../../lib/pagination.js';

/** A stored activity item (an account log or a person log). */
export type ActivityRow = typeof accountActivity.$inferSelect;
/** An activity item with the name of its person (person logs only). */
export type ActivityWithPerson = ActivityRow & { personName: string | null };
/** An activity item as inserted. */
export type NewActivity = Omit<ActivityRow, 'deletedAt'>;

const ACTIVITY = columns(accountActivity);

const insertOrSkip = statement({
  name: 'activity_insert_or_skip',
  params: {
    id: text,
    tenantId: text,
    accountId: text,
    kind: text,
    logId: text,
    personId: nullable(text),
    source: text,
    type: text,
    payload: json,
    idempotencyKey: nullable(text),
    requestHash: nullable(text),
    createdAt: timestamptz,
    updatedAt: timestamptz,
  },
  sql: (p) => sql`INSERT INTO account_activity ${insertValues(accountActivity, p)}
    ON CONFLICT (tenant_id, idempotency_key) DO NOTHING RETURNING ${ACTIVITY}`,
  row: rowOf<ActivityRow>(),
});

/**
 * Inserts an activity item. With an idempotency key already taken in the tenant, nothing is
 * inserted and `undefined` is returned: the unique index decides, so of any number of
 * concurrent requests with one key exactly one inserts (the others wait for it, then skip).
 */
export function insertActivity(db: Handle, row: NewActivity): Promise<ActivityRow | undefined> {
  return db.first(insertOrSkip, row);
}

const byIdempotencyKey = statement({
  name: 'activity_by_idempotency_key',
  params: { tenantId: text, idempotencyKey: text },
  sql: (p) => sql`SELECT ${ACTIVITY} FROM account_activity
  WHERE tenant_id = ${p.tenantId} AND idempotency_key = ${p.idempotencyKey}`,
  row: rowOf<ActivityRow>(),
});

/** The activity item that holds a tenant's idempotency key (every account log with a key asks). */
export function findByIdempotencyKey(
  db: Handle,
  tenantId: string,
  idempotencyKey: string,
): Promise<ActivityRow | undefined> {
  return db.first(byIdempotencyKey, { tenantId, idempotencyKey });
}

/** Filters of {@link listActivity}. */
export interface ActivityFilter {
  tenantId: string;
  accountId: string;
  includePersonActivity: boolean;
  includeDeleted: boolean;
}

/**
 * The statements of one view of an account's activity. The kind and deletion filters are
 * literals (not parameters) so that the partial indexes' predicates always match.
 */
function listStatements(includePersonActivity: boolean, includeDeleted: boolean) {
  const variant = `activity_list${includePersonActivity ? '_persons' : ''}${includeDeleted ? '_deleted' : ''}`;
  const filters = raw(
    `${includePersonActivity ? '' : " AND a.kind = 'account'"}${includeDeleted ? '' : ' AND a.deleted_at IS NULL'}`,
  );
  const select = sql`SELECT ${columns(accountActivity, { alias: 'a' })}, p.name AS "personName"
    FROM account_activity a LEFT JOIN persons p ON p.tenant_id = a.tenant_id AND p.id = a.person_id`;
  const order = raw('ORDER BY a.created_at DESC, a.id DESC');
  return {
    first: statement({
      name: `${variant}_first`,
      params: { tenantId: text, accountId: text, take: int },
      sql: (p) => sql`${select}
        WHERE a.tenant_id = ${p.tenantId} AND a.account_id = ${p.accountId}${filters}
        ${order} LIMIT ${p.take}`,
      row: rowOf<ActivityWithPerson>(),
    }),
    after: statement({
      name: `${variant}_after`,
      params: { tenantId: text, accountId: text, take: int, createdAt: timestamptz, id: text },
      sql: (p) => sql`${select}
        WHERE a.tenant_id = ${p.tenantId} AND a.account_id = ${p.accountId}${filters}
        AND ${keysetAfter(p, { alias: 'a' })} ${order} LIMIT ${p.take}`,
      row: rowOf<ActivityWithPerson>(),
    }),
  };
}

/** The views, by `includePersonActivity` then `includeDeleted`. */
const LIST = {
  accountLogs: { live: listStatements(false, false), all: listStatements(false, true) },
  everything: { live: listStatements(true, false), all: listStatements(true, true) },
};

/** One keyset page of an account's activity, newest first, with person names. */
export function listActivity(
  db: Handle,
  filter: ActivityFilter,
  take: number,
  after: KeysetPosition | undefined,
): Promise<ActivityWithPerson[]> {
  const kinds = filter.includePersonActivity ? LIST.everything : LIST.accountLogs;
  const statements = filter.includeDeleted ? kinds.all : kinds.live;
  const { tenantId, accountId } = filter;
  return after
    ? db.all(statements.after, { tenantId, accountId, take, createdAt: after.createdAt, id: after.id })
    : db.all(statements.first, { tenantId, accountId, take });
}

const markDeleted = statement({
  name: 'activity_mark_deleted',
  params: { tenantId: text, activityId: text, at: timestamptz },
  sql: (p) => sql`UPDATE account_activity SET deleted_at = ${p.at}, updated_at = ${p.at}
    WHERE tenant_id = ${p.tenantId} AND id = ${p.activityId}`,
});

/** Marks a tenant's activity item deleted. */
export async function markActivityDeleted(
  db: Handle,
  tenantId: string,
  activityId: string,
  at: Date,
): Promise<void> {
  await db.run(markDeleted, { tenantId, activityId, at });
}

const byLogLocked = statement({
  name: 'activity_by_log_locked',
  params: { tenantId: text, logId: text, kind: text },
  sql: (p) => sql`SELECT ${ACTIVITY} FROM account_activity
    WHERE tenant_id = ${p.tenantId} AND log_id = ${p.logId} AND kind = ${p.kind} FOR UPDATE`,
  row: rowOf<ActivityRow>(),
});

/** A tenant's activity item of an account log or a person log, by the log's id, locked. */
export function findActivityByLog(
  tx: Tx,
  tenantId: string,
  kind: 'account' | 'person',
  logId: string,
): Promise<ActivityRow | undefined> {
  return tx.first(byLogLocked, { tenantId, logId, kind });
}

const personName = statement({
  name: 'person_name_by_id',
  params: { tenantId: text, personId: text },
  sql: (p) => sql`SELECT name FROM persons WHERE tenant_id = ${p.tenantId} AND id = ${p.personId}`,
  row: rowOf<{ name: string }>(),
});

/** The name of a tenant's person, when it still exists. */
export async function personNameOf(db: Handle, tenantId: string, personId: string): Promise<string | null> {
  return (await db.first(personName, { tenantId, personId }))?.name ?? null;
}
