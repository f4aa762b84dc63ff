import { describe, expect, it } from 'vitest';
import { TenantShare, TenantShareExceeded } from './tenant-share.js';

describe('TenantShare', () => {
  it('lets a tenant hold at most its share; the next waits for a release, first come first served', async () => {
    const share = new TenantShare({ concurrency: 2, queueMs: 60_000 });
    const order: string[] = [];
    const [first, second] = await Promise.all([share.acquire('a'), share.acquire('a')]);
    const third = share.acquire('a').then((release) => {
      order.push('third');
      return release;
    });
    const fourth = share.acquire('a').then((release) => {
      order.push('fourth');
      return release;
    });
    // Another tenant is not affected by a's full share.
    (await share.acquire('b'))();
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
    const held = await share.acquire('a');
    const refused = await share.acquire('a').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(TenantShareExceeded);
    expect(refused).toMatchObject({ limit: 1, retryAfterMs: 1000 });
    held();
    (await share.acquire('a'))();
  });
});
