import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from '../db/migrate.js';
import { newId } from '../lib/ids.js';
import { query } from '../test/sql.js';
import { useTestApp } from '../test/test-app.js';

const t = useTestApp();
const BACKFILL = join(MIGRATIONS_FOLDER, '0016_webhook_event_queue_backfill.sql');

describe('the migration queueing events for fan-out', () => {
  it('queues exactly the events not fanned out yet, once each', async () => {
    const tenantId = newId('tenant');
    const [done, pending, queued] = [newId('evt'), newId('evt'), newId('evt')];
    const rollback = new Error('roll the schema back');
    const run = t.database.db.transaction(async (tx) => {
      // The column the events were marked by, as it was before the migration dropped it.
      await query(tx, 'ALTER TABLE webhook_events ADD COLUMN fanned_out_at timestamptz');
      await query(
        tx,
        `INSERT INTO webhook_events (id, tenant_id, type, payload, created_at, fanned_out_at)
         SELECT e.id, $1::text, 'page.version.created', '{}'::jsonb, now(), CASE WHEN e.id = $2 THEN now() END
         FROM unnest($3::text[]) AS e(id)`,
        [tenantId, done, [done, pending, queued]],
      );
      await query(tx, 'INSERT INTO webhook_event_queue (event_id, tenant_id) VALUES ($1, $2)', [
        queued,
        tenantId,
      ]);
      await query(tx, await readFile(BACKFILL, 'utf8'));
      const rows = await query<{ event_id: string }>(
        tx,
        'SELECT event_id FROM webhook_event_queue WHERE tenant_id = $1 ORDER BY event_id',
        [tenantId],
      );
      expect(rows.map((r) => r.event_id)).toEqual([pending, queued].sort());
      throw rollback;
    });
    await expect(run).rejects.toBe(rollback);
  });
});
