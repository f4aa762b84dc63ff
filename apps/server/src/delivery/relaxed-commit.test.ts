import { describe, expect, it } from 'vitest';
import type { Db, Tx } from '../db/port.js';
import { UNSENT_URL as URL, useFanOutTest } from '../test/fan-out.js';
import { query } from '../test/sql.js';
import { fanOut } from './fan-out.js';
import { handOver } from './hand-over.js';
import { leaseHandOver, writeHandOver } from './hand-over-lease.js';
import { completeAndLease, leaseDue, leaseDueWithTargets } from './lease.repo.js';
import { SuccessRecorder } from './success-batch.js';

const { time, t, h, deps } = useFanOutTest();

const synchronousCommit = async (db: Db | Tx): Promise<string> => {
  const [row] = await query<{ synchronous_commit: string }>(db, 'SHOW synchronous_commit');
  return row?.synchronous_commit ?? '';
};

/**
 * `synchronous_commit` in a transaction just after `run` wrote in it, and on the database once that
 * transaction committed (PGlite has one connection: the very one `run` used).
 */
async function commitSetting(run: (tx: Tx) => Promise<unknown>): Promise<{ inside: string; after: string }> {
  let inside = '';
  await t.database.db.transaction(async (tx) => {
    await run(tx);
    inside = await synchronousCommit(tx);
  });
  return { inside, after: await synchronousCommit(t.database.db) };
}

const lease = (token: string) => ({
  now: time.clock(),
  leasedUntil: new Date(time.clock().getTime() + 60_000),
  token,
  limit: 10,
  tenantCap: 10,
});

/** A new event's attempt, fanned out and leased to `token`. */
async function leasedAttempt(token: string) {
  await h.version();
  await fanOut(t.database.db, deps);
  const [row] = await leaseDue(t.database.db, lease(token));
  if (!row) throw new Error('nothing leased');
  return row;
}

/** A Db whose statements run in `tx` (the success recorder takes a database, not a transaction). */
const dbOf = (tx: Tx): Db => ({
  kind: 'db',
  all: (statement, input) => tx.all(statement, input),
  first: (statement, input) => tx.first(statement, input),
  run: (statement, input) => tx.run(statement, input),
  transaction: (body) => tx.transaction(body),
});

describe("the dispatcher's own statements commit without waiting for the WAL flush", () => {
  it('each turns it off for its own transaction and leaves the connection as it was', async () => {
    expect(await synchronousCommit(t.database.db)).toBe('on');
    await h.subscribe(URL);

    await h.version();
    expect(await commitSetting((tx) => fanOut(tx, deps))).toEqual({ inside: 'off', after: 'on' });

    await h.version();
    const handed = await commitSetting((tx) =>
      handOver(tx, deps, { ...lease('handed'), limit: 16, tenantCap: 16 }),
    );
    expect(handed).toEqual({ inside: 'off', after: 'on' });

    await h.version();
    const request = { ...lease('sent-first'), limit: 16, tenantCap: 16 };
    const leasedFirst = await commitSetting((tx) => leaseHandOver(tx, deps, request));
    expect(leasedFirst).toEqual({ inside: 'off', after: 'on' });
    await h.version();
    const sentFirst = await leaseHandOver(t.database.db, deps, request);
    expect(sentFirst.claimed).toHaveLength(1);
    expect(await commitSetting((tx) => writeHandOver(tx, sentFirst, request))).toEqual({
      inside: 'off',
      after: 'on',
    });

    await h.version();
    await fanOut(t.database.db, deps);
    expect(await commitSetting((tx) => leaseDueWithTargets(tx, lease('claim')))).toEqual({
      inside: 'off',
      after: 'on',
    });

    const held = await leasedAttempt('held');
    const success = { responseStatus: 200, responseBody: '', durationMs: 1, attemptedAt: time.clock() };
    expect(await commitSetting((tx) => new SuccessRecorder(dbOf(tx)).record(held, 'held', success))).toEqual({
      inside: 'off',
      after: 'on',
    });

    const next = await leasedAttempt('next');
    const rideAlong = await commitSetting((tx) =>
      completeAndLease(
        tx,
        {
          tenantIds: [next.tenantId],
          ids: [next.id],
          tokens: ['next'],
          queueAts: [next.queueAt],
          responseStatuses: [200],
          responseBodies: [''],
          durationsMs: [1],
          attemptedAt: [time.clock()],
        },
        lease('ride'),
      ),
    );
    expect(rideAlong).toEqual({ inside: 'off', after: 'on' });
  });
});
