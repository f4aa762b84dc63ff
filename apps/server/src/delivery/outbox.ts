import type { WebhookEventPayload } from '@customer-api/contract';
import type { Tx } from '../db/port.js';
import { webhookEvents } from '../db/schema/index.js';
import { insertValues, json, nullable, sql, statement, text, timestamptz } from '../db/sql.js';
import type { Clock } from '../lib/clock.js';
import type { IdSource } from '../lib/ids.js';

/** The version fields an event describes. */
export interface VersionEventSubject {
  tenantId: string;
  pageId: string;
  audienceId: string;
  versionId: string;
  status: VersionEventPayload['status'];
  createdAt: Date;
}

/** The channel `NOTIFY`ed when an event is written (delivered to listeners at commit). */
export const OUTBOX_CHANNEL = 'customer_api_webhook_events';

const insertEvent = statement({
  name: 'webhook_event_insert',
  params: {
    id: text,
    tenantId: text,
    type: text,
    payload: json,
    createdAt: timestamptz,
    subjectSubscriptionId: nullable(text),
  },
  sql: (p) => sql`WITH ev AS (INSERT INTO webhook_events ${insertValues(webhookEvents, p)})
INSERT INTO webhook_event_queue (event_id, tenant_id) VALUES (${p.id}, ${p.tenantId})`,
});

const notifyOutbox = statement({
  name: 'webhook_events_notify',
  params: { channel: text },
  sql: (p) => sql`SELECT pg_notify(${p.channel}, '')`,
});

/** The payload of an event of the `page.version.*` namespace. */
type VersionEventPayload = Extract<WebhookEventPayload, { versionId: string }>;
/** The payload of an operational event (`webhook.*`). */
export type OperationalEventPayload = Exclude<WebhookEventPayload, VersionEventPayload>;

async function recordEvent(
  tx: Tx,
  deps: { clock: Clock; ids: IdSource },
  tenantId: string,
  payload: WebhookEventPayload,
  subjectSubscriptionId: string | null,
): Promise<string> {
  const id = deps.ids('evt');
  await tx.run(insertEvent, {
    id,
    tenantId,
    type: payload.type,
    payload,
    createdAt: deps.clock(),
    subjectSubscriptionId,
  });
  await tx.run(notifyOutbox, { channel: OUTBOX_CHANNEL });
  return id;
}

/**
 * Writes a version event into the outbox. Call it with the transaction of the change itself, so
 * the event exists if and only if the change committed; the dispatcher delivers it later. The
 * `NOTIFY` in the same transaction wakes idle dispatchers when (and only if) it commits.
 */
export async function recordVersionEvent(
  tx: Tx,
  deps: { clock: Clock; ids: IdSource },
  type: VersionEventPayload['type'],
  subject: VersionEventSubject,
): Promise<string> {
  const payload: VersionEventPayload = {
    type,
    pageId: subject.pageId,
    audienceId: subject.audienceId,
    versionId: subject.versionId,
    status: subject.status,
    createdAt: subject.createdAt.toISOString(),
  };
  return recordEvent(tx, deps, subject.tenantId, payload, null);
}

/**
 * Writes an operational event about subscription `subject` into the outbox, in the transaction
 * that records what it reports: it is fanned out to the tenant's subscriptions that name its type
 * (or `webhook.*`), never to `subject`.
 */
export async function recordOperationalEvent(
  tx: Tx,
  deps: { clock: Clock; ids: IdSource },
  tenantId: string,
  payload: OperationalEventPayload,
): Promise<string> {
  return recordEvent(tx, deps, tenantId, payload, payload.webhookSubscriptionId);
}
