import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from '../db/migrate.js';
import { newId } from '../lib/ids.js';
import { query } from '../test/sql.js';
import { useTestApp } from '../test/test-app.js';

const t = useTestApp();
const BACKFILL = join(MIGRATIONS_FOLDER, '0025_webhook_delivery_queue_backfill.sql');

interface Queued {
  id: string;
  subscription_id: string;
  next_attempt_at: Date;
  lease_token: string | null;
  leased_until: Date | null;
  turn_at: Date | null;
}

describe('the migration moving pending attempts to the delivery queue', () => {
  it('queues every pending attempt once, with its due time, lease and turn, and nothing else', async () => {
    const tenantId = newId('tenant');
    const [free, leased, waiting, done, failed, already] = Array.from({ length: 6 }, () => newId('whdel'));
    const at = (s: number) => new Date(Date.UTC(2030, 0, 1, 12, 0, s));
    const rollback = new Error('roll the schema back');
    const run = t.database.db.transaction(async (tx) => {
      // The columns the log kept pending attempts' leases and turns in, before the migration dropped them.
      await query(
        tx,
        'ALTER TABLE webhook_deliveries ADD COLUMN lease_token text, ADD COLUMN leased_until timestamptz(3), ADD COLUMN turn_at timestamptz(3)',
      );
      await query(
        tx,
        `INSERT INTO webhook_deliveries (id, tenant_id, subscription_id, event_id, event_type, attempt, retry_step,
           status, created_at, next_attempt_at, lease_token, leased_until, turn_at)
         SELECT a.id, $1::text, 'whsub_' || a.n, 'evt_' || a.id, 'page.version.created', 1, 0, a.status, $2::timestamptz,
           a.next_at, a.token, a.until, a.turn
         FROM unnest($3::text[], $4::int[], $5::text[], $6::timestamptz[], $7::text[], $8::timestamptz[], $9::timestamptz[])
           AS a(id, n, status, next_at, token, until, turn)`,
        [
          tenantId,
          at(0),
          [free, leased, waiting, done, failed, already],
          [1, 2, 3, 4, 5, 6],
          ['pending', 'pending', 'pending', 'succeeded', 'failed', 'pending'],
          [at(1), at(2), at(3), null, at(5), at(6)],
          [null, 'dispatcher-a', null, null, null, null],
          [null, at(30), null, null, null, null],
          [null, null, at(3), null, null, null],
        ],
      );
      // Queued by a dispatcher of the new version while the migration ran: kept as it is.
      await query(
        tx,
        `INSERT INTO webhook_delivery_queue (id, tenant_id, subscription_id, next_attempt_at, lease_token)
         VALUES ($1, $2, 'whsub_6', $3, 'dispatcher-b')`,
        [already, tenantId, at(6)],
      );
      for (const statement of (await readFile(BACKFILL, 'utf8')).split('--> statement-breakpoint')) {
        await query(tx, statement);
      }
      const rows = await query<Queued>(
        tx,
        `SELECT id, subscription_id, next_attempt_at, lease_token, leased_until, turn_at
         FROM webhook_delivery_queue WHERE tenant_id = $1 ORDER BY subscription_id`,
        [tenantId],
      );
      expect(rows).toEqual([
        {
          id: free,
          subscription_id: 'whsub_1',
          next_attempt_at: at(1),
          lease_token: null,
          leased_until: null,
          turn_at: null,
        },
        {
          id: leased,
          subscription_id: 'whsub_2',
          next_attempt_at: at(2),
          lease_token: 'dispatcher-a',
          leased_until: at(30),
          turn_at: null,
        },
        {
          id: waiting,
          subscription_id: 'whsub_3',
          next_attempt_at: at(3),
          lease_token: null,
          leased_until: null,
          turn_at: at(3),
        },
        {
          id: already,
          subscription_id: 'whsub_6',
          next_attempt_at: at(6),
          lease_token: 'dispatcher-b',
          leased_until: null,
          turn_at: null,
        },
      ]);
      throw rollback;
    });
    await expect(run).rejects.toBe(rollback);
  });
});
