import type { Handle, Tx } from '../../db/port.js';
import { webhookSubscriptions } from '../../db/schema/index.js';
import {
  bool,
  columns,
  insertValues,
  int,
  nullable,
  type Param,
  raw,
  rowOf,
  type Sql,
  sql,
  statement,
  text,
  textArray,
  timestamptz,
} from '../../db/sql.js';
import type { SubscriptionRow } from '../../delivery/queue-control.js';
import { type KeysetPosition, keysetAfter } from '../../lib/pagination.js';

const SUBSCRIPTION = columns(webhookSubscriptions);

/** A subscription as created (the columns not given start empty). */
export type NewSubscription = Pick<
  SubscriptionRow,
  | 'id'
  | 'tenantId'
  | 'url'
  | 'eventTypes'
  | 'description'
  | 'maxDeliveriesPerSecond'
  | 'status'
  | 'secretSealed'
  | 'createdAt'
  | 'updatedAt'
> & { secretSealed: string };

const insert = statement({
  name: 'webhook_subscription_insert',
  params: {
    id: text,
    tenantId: text,
    url: text,
    eventTypes: textArray,
    description: nullable(text),
    maxDeliveriesPerSecond: nullable(int),
    status: text,
    secretSealed: text,
    createdAt: timestamptz,
    updatedAt: timestamptz,
  },
  sql: (p) =>
    sql`INSERT INTO webhook_subscriptions ${insertValues(webhookSubscriptions, p)} RETURNING ${SUBSCRIPTION}`,
  row: rowOf<SubscriptionRow>(),
});

/** Inserts a subscription. */
export async function insertSubscription(db: Handle, row: NewSubscription): Promise<SubscriptionRow> {
  const inserted = await db.first(insert, row);
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

/** Key space of the per-tenant subscription lock (an arbitrary constant: 'whsu'). */
const SUBSCRIPTION_LOCK_SPACE = 0x77687375;

const lockTenant = statement({
  name: 'webhook_subscriptions_lock_tenant',
  params: { tenantId: text },
  sql: (p) =>
    sql`SELECT pg_advisory_xact_lock(${raw(String(SUBSCRIPTION_LOCK_SPACE))}::int, hashtext(${p.tenantId}))`,
});

/**
 * Serialises a tenant's subscription creates until the transaction ends, in every process: a
 * transaction-level advisory lock, so concurrent creates cannot all count below the cap.
 */
export async function lockTenantSubscriptions(tx: Tx, tenantId: string): Promise<void> {
  await tx.run(lockTenant, { tenantId });
}

const countLive = statement({
  name: 'webhook_subscriptions_count_live',
  params: { tenantId: text },
  sql: (p) =>
    sql`SELECT count(*) AS n FROM webhook_subscriptions WHERE tenant_id = ${p.tenantId} AND deleted_at IS NULL`,
  row: rowOf<{ n: number }>(),
});

/** How many subscriptions a tenant has that are not deleted (disabled ones count). */
export async function countLiveSubscriptions(db: Handle, tenantId: string): Promise<number> {
  return (await db.first(countLive, { tenantId }))?.n ?? 0;
}

/** A tenant's live subscription by id. */
const liveSubscription = (p: { tenantId: Param<string>; id: Param<string> }): Sql =>
  sql`SELECT ${SUBSCRIPTION} FROM webhook_subscriptions
WHERE tenant_id = ${p.tenantId} AND id = ${p.id} AND deleted_at IS NULL`;

const byId = statement({
  name: 'webhook_subscription_by_id',
  params: { tenantId: text, id: text },
  sql: (p) => liveSubscription(p),
  row: rowOf<SubscriptionRow>(),
});

const byIdLocked = statement({
  name: 'webhook_subscription_by_id_locked',
  params: { tenantId: text, id: text },
  sql: (p) => sql`${liveSubscription(p)} FOR UPDATE`,
  row: rowOf<SubscriptionRow>(),
});

/** Finds a tenant's live (not deleted) subscription; `forUpdate` locks it. */
export function findSubscription(
  db: Handle,
  tenantId: string,
  id: string,
  forUpdate = false,
): Promise<SubscriptionRow | undefined> {
  return db.first(forUpdate ? byIdLocked : byId, { tenantId, id });
}

/** A tenant's live subscriptions. */
const liveOfTenant = (tenantId: Param<string>): Sql =>
  sql`SELECT ${SUBSCRIPTION} FROM webhook_subscriptions WHERE tenant_id = ${tenantId} AND deleted_at IS NULL`;
const NEWEST_FIRST = sql`ORDER BY created_at DESC, id DESC`;

const listFirst = statement({
  name: 'webhook_subscriptions_list_first',
  params: { tenantId: text, take: int },
  sql: (p) => sql`${liveOfTenant(p.tenantId)} ${NEWEST_FIRST} LIMIT ${p.take}`,
  row: rowOf<SubscriptionRow>(),
});

const listAfter = statement({
  name: 'webhook_subscriptions_list_after',
  params: { tenantId: text, take: int, createdAt: timestamptz, id: text },
  sql: (p) => sql`${liveOfTenant(p.tenantId)} AND ${keysetAfter(p)} ${NEWEST_FIRST} LIMIT ${p.take}`,
  row: rowOf<SubscriptionRow>(),
});

/** One keyset page of a tenant's live subscriptions, newest first. */
export function listSubscriptions(
  db: Handle,
  tenantId: string,
  take: number,
  after?: KeysetPosition,
): Promise<SubscriptionRow[]> {
  return after
    ? db.all(listAfter, { tenantId, take, createdAt: after.createdAt, id: after.id })
    : db.all(listFirst, { tenantId, take });
}

/** What an update of a subscription writes: each field given is set, each absent one kept. */
export interface SubscriptionChange {
  url?: string | undefined;
  eventTypes?: SubscriptionRow['eventTypes'] | undefined;
  /** A description, or null to remove it. */
  description?: string | null | undefined;
  /** A throttle, or null to remove it. */
  maxDeliveriesPerSecond?: number | null | undefined;
  /** Back to active: the disabled reason and the failure run are cleared with it. */
  reactivate: boolean;
  updatedAt: Date;
}

/*
 * One statement for every combination of fields an update gives: an absent field keeps its column
 * (`coalesce`, or `CASE` for the description and the throttle, which null removes).
 */
const update = statement({
  name: 'webhook_subscription_update',
  params: {
    tenantId: text,
    id: text,
    url: nullable(text),
    eventTypes: nullable(textArray),
    setDescription: bool,
    description: nullable(text),
    setThrottle: bool,
    maxDeliveriesPerSecond: nullable(int),
    reactivate: bool,
    updatedAt: timestamptz,
  },
  sql: (p) => sql`UPDATE webhook_subscriptions SET
  url = coalesce(${p.url}::text, url),
  event_types = coalesce(${p.eventTypes}::text[], event_types),
  description = CASE WHEN ${p.setDescription}::boolean THEN ${p.description}::text ELSE description END,
  max_deliveries_per_second = CASE WHEN ${p.setThrottle}::boolean THEN ${p.maxDeliveriesPerSecond}::int
    ELSE max_deliveries_per_second END,
  status = CASE WHEN ${p.reactivate}::boolean THEN 'active' ELSE status END,
  disabled_reason = CASE WHEN ${p.reactivate}::boolean THEN NULL ELSE disabled_reason END,
  failing_since = CASE WHEN ${p.reactivate}::boolean THEN NULL ELSE failing_since END,
  updated_at = ${p.updatedAt}
WHERE tenant_id = ${p.tenantId} AND id = ${p.id} RETURNING ${SUBSCRIPTION}`,
  row: rowOf<SubscriptionRow>(),
});

/** Updates a tenant's subscription and returns it. */
export async function updateSubscription(
  db: Handle,
  tenantId: string,
  id: string,
  change: SubscriptionChange,
): Promise<SubscriptionRow> {
  const row = await db.first(update, {
    tenantId,
    id,
    url: change.url,
    eventTypes: change.eventTypes,
    setDescription: change.description !== undefined,
    description: change.description,
    setThrottle: change.maxDeliveriesPerSecond !== undefined,
    maxDeliveriesPerSecond: change.maxDeliveriesPerSecond,
    reactivate: change.reactivate,
    updatedAt: change.updatedAt,
  });
  if (!row) throw new Error(`subscription ${id} vanished during update`);
  return row;
}

/** The columns a rotation of the signing secret writes (both sealed). */
export interface SecretRotation {
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
  updatedAt: Date;
}

/* A rotation also empties the plaintext columns of a row written before sealing. */
const rotate = statement({
  name: 'webhook_subscription_rotate_secret',
  params: {
    tenantId: text,
    id: text,
    secretSealed: text,
    previousSecretSealed: nullable(text),
    previousSecretExpiresAt: nullable(timestamptz),
    updatedAt: timestamptz,
  },
  sql: (p) => sql`UPDATE webhook_subscriptions SET secret_sealed = ${p.secretSealed},
  previous_secret_sealed = ${p.previousSecretSealed}, secret = NULL, previous_secret = NULL,
  previous_secret_expires_at = ${p.previousSecretExpiresAt}, updated_at = ${p.updatedAt}
WHERE tenant_id = ${p.tenantId} AND id = ${p.id} RETURNING ${SUBSCRIPTION}`,
  row: rowOf<SubscriptionRow>(),
});

/** Writes a tenant's subscription's new signing secret (and the one it replaces) and returns it. */
export async function rotateSecret(
  db: Handle,
  tenantId: string,
  id: string,
  rotation: SecretRotation,
): Promise<SubscriptionRow> {
  const row = await db.first(rotate, { tenantId, id, ...rotation });
  if (!row) throw new Error(`subscription ${id} vanished during update`);
  return row;
}
