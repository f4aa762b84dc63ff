import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { failedTooLong, nextAttemptAt, parseRetryAfter, retryDelayMs } from './retry.js';

const now = new Date('2026-01-01T00:00:00.000Z');

describe('retryDelayMs', () => {
  const schedule = loadConfig({}).webhooks.retryScheduleSeconds;

  it('follows the default schedule of DESIGN: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    expect(schedule).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(schedule.map((_, step) => retryDelayMs(schedule, step, () => 0.5))).toEqual([
      5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
    expect(retryDelayMs(schedule, schedule.length)).toBeUndefined();
  });

  it('jitters by at most 20 % either way', () => {
    expect(retryDelayMs(schedule, 1, () => 0)).toBe(240_000);
    expect(retryDelayMs(schedule, 1, () => 0.999999)).toBeCloseTo(360_000, -1);
    const samples = Array.from({ length: 200 }, () => retryDelayMs(schedule, 2) ?? 0);
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(1_440_000);
    expect(Math.max(...samples)).toBeLessThanOrEqual(2_160_000);
    expect(new Set(samples).size).toBeGreaterThan(1);
  });

  it('takes a short schedule from WEBHOOKS_RETRY_SCHEDULE', () => {
    const short = loadConfig({ WEBHOOKS_RETRY_SCHEDULE: '1,2,4' }).webhooks.retryScheduleSeconds;
    expect(short.map((_, step) => retryDelayMs(short, step, () => 0.5))).toEqual([1000, 2000, 4000]);
  });
});

describe('parseRetryAfter', () => {
  it('reads delta seconds and HTTP dates, capped at a day', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(['7'], now)).toBe(7000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('999999999', now)).toBe(24 * 3600 * 1000);
  });

  it('ignores absent and unreadable values', () => {
    for (const value of [undefined, '', 'soon', '-5', '1.5'])
      expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});

describe('nextAttemptAt', () => {
  it('waits for the later of the schedule and Retry-After', () => {
    expect(nextAttemptAt(now, 5000, undefined)?.toISOString()).toBe('2026-01-01T00:00:05.000Z');
    expect(nextAttemptAt(now, 5000, 60_000)?.toISOString()).toBe('2026-01-01T00:01:00.000Z');
    expect(nextAttemptAt(now, 5000, 1000)?.toISOString()).toBe('2026-01-01T00:00:05.000Z');
    expect(nextAttemptAt(now, undefined, 1000)).toBeUndefined();
  });
});

describe('failedTooLong', () => {
  it('is true after five days of continuous failure', () => {
    const day = 24 * 3600 * 1000;
    expect(failedTooLong(null, now)).toBe(false);
    expect(failedTooLong(new Date(now.getTime() - 5 * day + 1), now)).toBe(false);
    expect(failedTooLong(new Date(now.getTime() - 5 * day), now)).toBe(true);
  });
});

describe('webhook settings', () => {
  it('default to a 10 s timeout, secure mode, a dispatcher in the server process and fair shares', () => {
    expect(loadConfig({}).webhooks).toEqual({
      allowInsecure: false,
      retryScheduleSeconds: [5, 300, 1800, 7200, 18000, 36000, 36000],
      timeoutMs: 10_000,
      leaseMs: 70_000,
      dispatchInServer: true,
      maxSubscriptions: 16,
      concurrency: 16,
      tenantConcurrency: 4,
      retentionDays: 30,
      purgeIntervalS: 3600,
    });
    // A tenant's share never exceeds what the process sends at once.
    expect(loadConfig({ WEBHOOKS_CONCURRENCY: '2' }).webhooks).toMatchObject({
      concurrency: 2,
      tenantConcurrency: 2,
    });
    const custom = loadConfig({ WEBHOOKS_DISPATCHER: '0', WEBHOOKS_TIMEOUT_MS: '2500' }).webhooks;
    expect(custom).toMatchObject({ dispatchInServer: false, timeoutMs: 2500 });
    expect(() => loadConfig({ WEBHOOKS_DISPATCHER: 'maybe' })).toThrow(/WEBHOOKS_DISPATCHER/);
    expect(() => loadConfig({ WEBHOOKS_RETRY_SCHEDULE: '1,x' })).toThrow(/WEBHOOKS_RETRY_SCHEDULE/);
    // The lease follows the timeout unless set, and never ends before a send's timeout does.
    expect(custom.leaseMs).toBe(62_500);
    expect(loadConfig({ WEBHOOKS_TIMEOUT_MS: '1000', WEBHOOKS_LEASE_MS: '5000' }).webhooks.leaseMs).toBe(
      5000,
    );
    expect(() => loadConfig({ WEBHOOKS_LEASE_MS: '10000' })).toThrow(/WEBHOOKS_LEASE_MS=10000: must exceed/);
  });
});
