import { describe, expect, it } from 'vitest';
import { TenantShare, TenantShareExceeded } from './tenant-share.js';

describe('TenantShare', () => {
  it('lets a tenant hold at most its share; the next waits for a release, first come first served', async () => {
    const share = new TenantShare({ concurrency: 2, queueMs: 60_000 });
    const order: string[] = [];
    const [first, second] = await share.run('a', () => Promise.all([share.acquire(), share.acquire()]));
    const third = share
      .run('a', () => share.acquire())
      .then((release) => {
        order.push('third');
        return release;
      });
    const fourth = share
      .run('a', () => share.acquire())
      .then((release) => {
        order.push('fourth');
        return release;
      });
    // Another tenant is not affected by a's full share.
    (await share.run('b', () => share.acquire()))();
    expect(order).toEqual([]);
    first?.();
    first?.(); // releasing twice frees one unit only
    const thirdRelease = await third;
    expect(order).toEqual(['third']);
    second?.();
    (await fourth)();
    thirdRelease();
  });

  it('fails a waiter past the queue time with the limit, and the share stays usable', async () => {
    const share = new TenantShare({ concurrency: 1, queueMs: 0 });
    const held = await share.run('a', () => share.acquire());
    const refused = await share.run('a', () => share.acquire()).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(TenantShareExceeded);
    expect(refused).toMatchObject({ limit: 1, retryAfterMs: 1000 });
    held();
    (await share.run('a', () => share.acquire()))();
  });

  it('does not limit work outside any tenant (dispatch, migrations)', async () => {
    const share = new TenantShare({ concurrency: 1, queueMs: 0 });
    const releases = await Promise.all(Array.from({ length: 5 }, () => share.acquire()));
    for (const release of releases) release();
  });
});
