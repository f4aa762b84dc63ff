import { z } from 'zod';
import { flag, invalid, positiveInt } from './values.js';

const retrySchedule = z
  .string()
  .default('5,300,1800,7200,18000,36000,36000')
  .transform((value, ctx) => {
    const seconds = value.split(',').map((part) => Number(part.trim()));
    if (seconds.length === 0 || seconds.some((s) => !Number.isFinite(s) || s < 0)) {
      ctx.addIssue({ code: 'custom', message: 'must be comma-separated non-negative seconds, e.g. 1,2,4' });
      return z.NEVER;
    }
    return seconds;
  });

/** The variables of webhook delivery. */
export const WEBHOOKS_ENV = {
  WEBHOOKS_ALLOW_INSECURE: flag(false),
  // 1 (default): the server process delivers webhooks too; 0: only `customer-api dispatch` does.
  WEBHOOKS_DISPATCHER: flag(true),
  WEBHOOKS_RETRY_SCHEDULE: retrySchedule,
  WEBHOOKS_TIMEOUT_MS: positiveInt(10_000),
  WEBHOOKS_LEASE_MS: z.coerce.number<number>().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  WEBHOOKS_MAX_SUBSCRIPTIONS: positiveInt(16),
  WEBHOOKS_CONCURRENCY: positiveInt(16),
  WEBHOOKS_TENANT_CONCURRENCY: positiveInt(4),
  WEBHOOKS_RETENTION_DAYS: z.coerce.number<number>().int().min(1).max(3650).default(30),
  WEBHOOKS_PURGE_INTERVAL_S: z.coerce.number<number>().int().min(1).max(86_400).default(3600),
};

type WebhooksEnv = z.output<z.ZodObject<typeof WEBHOOKS_ENV>>;

/** Webhook delivery's settings. */
export interface WebhooksConfig {
  allowInsecure: boolean;
  retryScheduleSeconds: number[];
  timeoutMs: number;
  /**
   * How long a claimed attempt stays leased to its dispatcher before another may send it again
   * (`WEBHOOKS_LEASE_MS`, default the timeout + 60 s; always more than the timeout).
   */
  leaseMs: number;
  /** Whether `serve`/`start` run a dispatcher in the server process (`WEBHOOKS_DISPATCHER`). */
  dispatchInServer: boolean;
  /** Subscriptions one tenant may have; one more is 409 CONFLICT. */
  maxSubscriptions: number;
  /** Attempts one dispatcher process sends at once. */
  concurrency: number;
  /** Attempts of one tenant one dispatcher process sends at once (its fair share). */
  tenantConcurrency: number;
  /**
   * Days finished delivery attempts (with their responses) and delivered events are kept
   * (`WEBHOOKS_RETENTION_DAYS`, default 30; longer than the retry schedule): older ones are purged.
   */
  retentionDays: number;
  /**
   * Seconds between a dispatcher's purges of what the retention lets go (`WEBHOOKS_PURGE_INTERVAL_S`,
   * default 3600, at most a day); the first runs a minute after start, or sooner when this is shorter.
   */
  purgeIntervalS: number;
}

/**
 * Webhook delivery's settings from its variables: the retention must outlast the retry schedule,
 * and the lease the send's timeout.
 */
export function webhooksConfig(e: WebhooksEnv): WebhooksConfig {
  const leaseMs = e.WEBHOOKS_LEASE_MS ?? e.WEBHOOKS_TIMEOUT_MS + 60_000;
  const retrySpanS = e.WEBHOOKS_RETRY_SCHEDULE.reduce((total, s) => total + s, 0);
  if (e.WEBHOOKS_RETENTION_DAYS * 86_400 <= retrySpanS) {
    throw invalid(
      `WEBHOOKS_RETENTION_DAYS=${e.WEBHOOKS_RETENTION_DAYS}: must exceed the retry schedule's ${(retrySpanS / 86_400).toFixed(2)} days (WEBHOOKS_RETRY_SCHEDULE), so no attempt outlives its event`,
    );
  }
  if (leaseMs <= e.WEBHOOKS_TIMEOUT_MS) {
    // A lease that ends before the send's timeout would let another dispatcher send it meanwhile.
    throw invalid(`WEBHOOKS_LEASE_MS=${leaseMs}: must exceed WEBHOOKS_TIMEOUT_MS (${e.WEBHOOKS_TIMEOUT_MS})`);
  }
  return {
    allowInsecure: e.WEBHOOKS_ALLOW_INSECURE,
    retryScheduleSeconds: e.WEBHOOKS_RETRY_SCHEDULE,
    timeoutMs: e.WEBHOOKS_TIMEOUT_MS,
    leaseMs,
    dispatchInServer: e.WEBHOOKS_DISPATCHER,
    maxSubscriptions: e.WEBHOOKS_MAX_SUBSCRIPTIONS,
    concurrency: e.WEBHOOKS_CONCURRENCY,
    tenantConcurrency: Math.min(e.WEBHOOKS_TENANT_CONCURRENCY, e.WEBHOOKS_CONCURRENCY),
    retentionDays: e.WEBHOOKS_RETENTION_DAYS,
    purgeIntervalS: e.WEBHOOKS_PURGE_INTERVAL_S,
  };
}
