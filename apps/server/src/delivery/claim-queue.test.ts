import { describe, expect, it } from 'vitest';
import { ClaimQueue } from './claim-queue.js';
import type { Claimed } from './lease.repo.js';
import type { QueuedAttempt } from './types.js';

const T0 = Date.parse('2030-01-01T12:00:00.000Z');
let seq = 0;

/** A claimed attempt of `tenantId`/`subscriptionId`, due `ageS` seconds before T0, leased for 60 s. */
function claimed(tenantId: string, subscriptionId: string, ageS = 0, leaseS = 60): Claimed {
  seq += 1;
  const row = {
    id: `whdel_${seq}`,
    tenantId,
    subscriptionId,
    nextAttemptAt: new Date(T0 - ageS * 1000),
    leasedUntil: new Date(T0 + leaseS * 1000),
  } as QueuedAttempt;
  return { row, target: { subscription: undefined, event: undefined } };
}

/** Takes every attempt `next` gives now. */
function drain(queue: ClaimQueue): Claimed[] {
  const taken: Claimed[] = [];
  for (let c = queue.next(); c; c = queue.next()) taken.push(c);
  return taken;
}

const label = (c: Claimed) => `${c.row.tenantId}/${c.row.subscriptionId}`;

describe('the claim queue', () => {
  it('sends round robin across tenants, then subscriptions, oldest first, never past a tenant’s cap', () => {
    const queue = new ClaimQueue(2);
    queue.add([
      claimed('a', 'a1', 30),
      claimed('a', 'a1', 20),
      claimed('a', 'a2', 10),
      claimed('a', 'a1', 5),
      claimed('b', 'b1', 1),
    ]);
    const first = drain(queue);
    expect(first.map(label)).toEqual(['a/a1', 'b/b1', 'a/a2']);
    // The oldest of a1 went first; tenant a sends its 2, and its other 2 wait.
    expect(first[0]?.row.nextAttemptAt?.getTime()).toBe(T0 - 30_000);
    expect(queue.waiting).toBe(2);
    expect(queue.next()).toBeUndefined();

    // An exchange of a's ends: one more of a's may go, the oldest left.
    queue.sent((first[0] as Claimed).row);
    const [next, ...none] = drain(queue);
    expect(none).toEqual([]);
    expect(next?.row.nextAttemptAt?.getTime()).toBe(T0 - 20_000);
  });

  it('counts an attempt against its share from the claim until its exchange is over, and holds it until settled', () => {
    const queue = new ClaimQueue(4);
    queue.add([claimed('a', 'a1'), claimed('a', 'a1'), claimed('a', 'a2')]);
    const [one, ...others] = drain(queue);
    if (!one) throw new Error('nothing to send');
    // Being sent: in the shares.
    expect(queue.holdings()).toEqual(
      expect.arrayContaining([
        { tenantId: 'a', subscriptionId: 'a1', count: 2 },
        { tenantId: 'a', subscriptionId: 'a2', count: 1 },
      ]),
    );
    queue.sent(one.row);
    // Sent, its outcome being recorded: out of the shares, still held (its lease is kept).
    expect(queue.size).toBe(3);
    expect(queue.unsent).toBe(2);
    expect(queue.holdings().reduce((n, h) => n + h.count, 0)).toBe(2);
    expect(queue.holdings().find((h) => h.subscriptionId === one.row.subscriptionId)?.count ?? 0).toBe(
      one.row.subscriptionId === 'a1' ? 1 : 0,
    );
    queue.settled(one.row);
    expect(queue.size).toBe(2);
    expect(queue.unsent).toBe(2);
    for (const c of others) {
      queue.sent(c.row);
      queue.settled(c.row);
    }
    expect(queue.size).toBe(0);
    expect(queue.holdings()).toEqual([]);
  });

  it('leaves room for claims under both limits: attempts to send, and all held', () => {
    const queue = new ClaimQueue(8, { unsent: 4, held: 6 });
    expect(queue.room()).toBe(4);
    queue.add([claimed('a', 'a1'), claimed('a', 'a1'), claimed('a', 'a2'), claimed('b', 'b1')]);
    expect(queue.room()).toBe(0);
    const [one, two, three, four] = drain(queue);
    if (!one || !two || !three || !four) throw new Error('nothing to send');
    queue.sent(one.row);
    queue.sent(two.row);
    // Two sent, being recorded: room to send two more, and two more may be held.
    expect(queue.room()).toBe(2);
    queue.add([claimed('a', 'a1'), claimed('b', 'b1')]);
    queue.sent(three.row);
    queue.sent(four.row);
    // Two waiting or being sent, six held: only a claim whose statement records two may add two.
    expect(queue.unsent).toBe(2);
    expect(queue.room()).toBe(0);
    expect(queue.room(2)).toBe(2);
    queue.settled(one.row);
    queue.settled(two.row);
    expect(queue.room()).toBe(2);
  });

  it('gives up waiting attempts whose lease ends before a send could finish, or all of them', () => {
    const queue = new ClaimQueue(1);
    const short = claimed('a', 'a1', 0, 10);
    const long = claimed('a', 'a1', 0, 60);
    const other = claimed('b', 'b1', 0, 10);
    queue.add([short, long, other]);
    const dropped = queue.dropWaiting(T0 + 30_000);
    expect(dropped.map((c) => c.row.id).sort()).toEqual([short.row.id, other.row.id].sort());
    // Only the long lease is left to send; the two short ones are no longer held.
    expect(drain(queue).map((c) => c.row.id)).toEqual([long.row.id]);
    expect(queue.size).toBe(1);
    queue.add([claimed('a', 'a1'), claimed('b', 'b1')]);
    expect(queue.dropWaiting()).toHaveLength(2);
    expect(queue.waiting).toBe(0);
    expect(queue.size).toBe(1);
  });
});
