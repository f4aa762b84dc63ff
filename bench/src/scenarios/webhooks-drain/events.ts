// The events of a scenario 4 round: `page.version.created` events written to the outbox the way
// the server writes them, in batches of 200 per transaction or one at a time at a fixed rate.
import { performance } from 'node:perf_hooks';
import type { Database } from '@customer-api/server';
import { newId } from '@customer-api/server';
import { recordVersionEvent } from '@customer-api/server/internals';
import type { DispatchDeps } from '../../lib/dispatch-setup.js';

/** What a round writes events with, and for which tenant. */
export interface EventSource {
  database: Database;
  deps: DispatchDeps;
  tenantId: string;
}

/** A new version of a new page of `tenantId`: what an event is about. */
export const subject = (tenantId: string) => ({
  tenantId,
  pageId: newId('page'),
  audienceId: newId('audience'),
  versionId: newId('version'),
  status: 'draft' as const,
  createdAt: new Date(),
});

/** Commits `count` events over `tenants` in turn, 200 per transaction; answers their versionIds. */
export async function emit(
  source: EventSource,
  count: number,
  tenants: string[] = [source.tenantId],
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 200) {
    await source.database.db.transaction(async (tx) => {
      for (let j = i; j < Math.min(count, i + 200); j += 1) {
        const s = { ...subject(source.tenantId), tenantId: tenants[j % tenants.length] ?? source.tenantId };
        ids.push(s.versionId);
        await recordVersionEvent(tx, source.deps, 'page.version.created', s);
      }
    });
  }
  return ids;
}

/** Commits `count` events one at a time at `rate`/s; returns each one's commit instant by id. */
export async function emitAtRate(
  source: EventSource,
  count: number,
  rate: number,
): Promise<Map<string, number>> {
  const committed = new Map<string, number>();
  for (let i = 0; i < count; i += 1) {
    const [id] = await emit(source, 1);
    if (id) committed.set(id, performance.now());
    await new Promise((r) => setTimeout(r, 1000 / rate));
  }
  return committed;
}
