import type { Handle } from './port.js';
import { rowOf, sql, statement } from './sql.js';

const primaryPosition = statement({
  name: 'wal_insert_position',
  sql: () => sql`SELECT pg_current_wal_insert_lsn()::text AS lsn`,
  row: rowOf<{ lsn: string }>(),
});

const standbyState = statement({
  name: 'standby_state',
  // Lag is the age of the last replayed transaction while received WAL waits to be replayed, and
  // 0 when everything received is replayed; null when it cannot be told.
  sql: () => sql`SELECT pg_is_in_recovery() AS standby,
    pg_last_wal_replay_lsn()::text AS replayed,
    EXISTS (SELECT 1 FROM pg_stat_wal_receiver) AS streaming,
    CASE WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0
      ELSE (EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8
    END AS lag_ms`,
  row: rowOf<{ standby: boolean; replayed: string | null; streaming: boolean; lag_ms: number | null }>(),
});

/** A WAL position (`pg_lsn`) as a number that orders like the positions. */
export function parseLsn(text: string): bigint {
  const [high = '', low = ''] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/**
 * The primary's WAL insert position now: read after a transaction's COMMIT returned, it is at or
 * past the end of that transaction's commit record (see docs/decisions/0208-read-replicas.md).
 */
export async function primaryWalPosition(primary: Handle): Promise<bigint> {
  const row = await primary.first(primaryPosition, {});
  if (!row) throw new Error('pg_current_wal_insert_lsn() returned no row');
  return parseLsn(row.lsn);
}

/** What a standby reports about itself. */
export interface StandbyState {
  /** False when the server is not in recovery (not a standby: never read from it). */
  standby: boolean;
  /** End of the last WAL record replayed; undefined when nothing was. */
  replayed: bigint | undefined;
  /** Whether its WAL receiver runs (else it may fall behind the primary without knowing). */
  streaming: boolean;
  /** How far replay trails what it received, in ms; undefined when it cannot be told. */
  lagMs: number | undefined;
}

/** The state of the standby the handle's connection leads to. */
export async function readStandbyState(replica: Handle): Promise<StandbyState> {
  const row = await replica.first(standbyState, {});
  if (!row) throw new Error('the standby state query returned no row');
  return {
    standby: row.standby,
    replayed: row.replayed === null ? undefined : parseLsn(row.replayed),
    streaming: row.streaming,
    lagMs: row.lag_ms === null ? undefined : Math.max(0, row.lag_ms),
  };
}
