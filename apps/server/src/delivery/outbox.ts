import type { WebhookEventPayload, WebhookEventType } from '@customer-api/contract';
import type { Tx } from '../db/port.js';
import { webhookEvents } from '../db/schema/index.js';
import { insertValues, json, sql, statement, text, timestamptz } from '../db/sql.js';
import type { Clock } from '../lib/clock.js';
import type { IdSource } from '../lib/ids.js';

/** The version fields an event describes. */
export interface VersionEventSubject {
  tenantId: string;
  pageId: string;
  audienceId: string;
  versionId: string;
  status: WebhookEventPayload['status'];
  createdAt: Date;
}

/** The channel `NOTIFY`ed when an event is written (delivered to listeners at commit). */
export const OUTBOX_CHANNEL = 'customer_api_webhook_events';

const insertEvent = statement({
  name: 'webhook_event_insert',
  params: { id: text, tenantId: text, type: text, payload: json, createdAt: timestamptz },
  sql: (p) => sql`WITH ev AS (INSERT INTO webhook_events ${insertValues(webhookEvents, p)})
INSERT INTO webhook_event_queue (event_id, tenant_id) VALUES (${p.id}, ${p.tenantId})`,
});

const notifyOutbox = statement({
  name: 'webhook_events_notify',
  params: { channel: text },
  sql: (p) => sql`SELECT pg_notify(${p.channel}, '')`,
});

/**
 * Writes a version event into the outbox. Call it with the transaction of the change itself, so
 * the event exists if and only if the change committed; the dispatcher delivers it later. The
 * `NOTIFY` in the same transaction wakes idle dispatchers when (and only if) it commits.
 */
export async function recordVersionEvent(
  tx: Tx,
  deps: { clock: Clock; ids: IdSource },
  type: WebhookEventType,
  subject: VersionEventSubject,
): Promise<string> {
  const id = deps.ids('evt');
  const payload: WebhookEventPayload = {
    type,
    pageId: subject.pageId,
    audienceId: subject.audienceId,
    versionId: subject.versionId,
    status: subject.status,
    createdAt: subject.createdAt.toISOString(),
  };
  await tx.run(insertEvent, { id, tenantId: subject.tenantId, type, payload, createdAt: deps.clock() });
  await tx.run(notifyOutbox, { channel: OUTBOX_CHANNEL });
  return id;
}
