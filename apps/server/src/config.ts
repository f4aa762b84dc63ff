import { isIP } from 'node:net';
import { z } from 'zod';
import {
  type EncryptionKey,
  EncryptionKeysError,
  parseEncryptionKeys,
  SECRETS_KEYS_VARIABLE,
} from './secrets/secret-box.js';

const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

const positiveInt = (fallback: number, min = 1) =>
  z.coerce.number<number>().int().min(min).max(Number.MAX_SAFE_INTEGER).default(fallback);

/** A boolean setting: `1`/`true` or `0`/`false`; unset or empty takes `fallback`. */
const flag = (fallback: boolean) =>
  z
    .enum(['1', '0', 'true', 'false', ''])
    .default('')
    .transform((value) => (value === '' ? fallback : value === '1' || value === 'true'));

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

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** A proxy address, CIDR range or proxy-addr name (`loopback`, `linklocal`, `uniquelocal`). */
function isProxyAddress(entry: string): boolean {
  if (PROXY_NAMES.has(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

// 0: the peer is the client; N: trust N proxy hops; true: every hop; else the proxies' addresses.
const trustProxy = z
  .string()
  .trim()
  .default('0')
  .transform((value, ctx): boolean | number | string[] => {
    if (value === '' || value === '0' || value === 'false') return false;
    if (value === 'true') return true;
    if (/^\d+$/.test(value) && Number(value) <= 16) return Number(value);
    const entries = value.split(',').map((part) => part.trim());
    if (entries.every(isProxyAddress)) return entries;
    ctx.addIssue({
      code: 'custom',
      message: 'must be 0, a number of proxy hops (1-16), true, or comma-separated proxy addresses/CIDRs',
    });
    return z.NEVER;
  });

/** `https://app.example.com` as browsers send it in `Origin`: scheme, host and port only. */
function originError(entry: string): string | undefined {
  if (entry === '*') return 'list each origin; "*" is not accepted';
  if (!URL.canParse(entry)) return `"${entry}" is not an origin such as https://app.example.com`;
  const url = new URL(entry);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `"${entry}" must start with http:// or https://`;
  return url.origin === entry ? undefined : `"${entry}" is not an origin; write ${url.origin}`;
}

// Exact origins a browser page may call the API from; none by default (decision 0215).
const corsOrigins = z
  .string()
  .trim()
  .default('')
  .transform((value, ctx): string[] => {
    const entries = value === '' ? [] : value.split(',').map((part) => part.trim());
    for (const entry of entries) {
      const message = originError(entry);
      if (message) ctx.addIssue({ code: 'custom', message });
    }
    return [...new Set(entries)];
  });

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number<number>().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  BASE_URL: z.url().optional(),
  DATABASE_URL: optionalText.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
      .optional(),
  ),
  DATABASE_REPLICA_URL: optionalText.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
      .optional(),
  ),
  DATABASE_REPLICA_MAX_LAG_MS: positiveInt(5_000, 0),
  DATA_DIR: z.string().min(1).default('./.data'),
  REDIS_URL: optionalText.pipe(
    z
      .string()
      .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
      .optional(),
  ),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RATE_LIMIT_MAX: positiveInt(1000),
  RATE_LIMIT_WINDOW_MS: positiveInt(60_000, 1000),
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
  DATABASE_POOL_SIZE: positiveInt(10, 2),
  DATABASE_STATEMENT_TIMEOUT_MS: positiveInt(5_000, 100),
  TENANT_DB_CONCURRENCY: positiveInt(4),
  TENANT_DB_QUEUE_MS: positiveInt(1_000, 0),
  TENANT_RESPONSE_BYTES_PER_S: positiveInt(4 * 1024 * 1024, 64 * 1024),
  HTTP_HEADERS_TIMEOUT_MS: positiveInt(10_000, 100),
  HTTP_REQUEST_TIMEOUT_MS: positiveInt(30_000, 100),
  HTTP_IDLE_TIMEOUT_MS: positiveInt(60_000, 100),
  IDEMPOTENCY_TTL_S: positiveInt(86_400),
  AUTH_CACHE_TTL_S: z.coerce.number<number>().int().min(0).max(3600).default(30),
  ASSET_MAX_BYTES: positiveInt(100 * 1024 * 1024),
  ASSET_URL_TTL_S: z.coerce
    .number<number>()
    .int()
    .min(1)
    .max(7 * 86_400)
    .default(900),
  TRUST_PROXY: trustProxy,
  CORS_ALLOWED_ORIGINS: corsOrigins,
  SHUTDOWN_GRACE_MS: positiveInt(10_000, 0),
  MIGRATE_ON_START: flag(true),
  DISPATCH_PORT: optionalText.pipe(z.coerce.number<string | undefined>().int().min(0).max(65535).optional()),
  METRICS_PORT: optionalText.pipe(z.coerce.number<string | undefined>().int().min(0).max(65535).optional()),
  // Validated apart (parseEncryptionKeys), so that no error message ever prints a key.
  SECRETS_ENCRYPTION_KEYS: optionalText,
});

/** Validated server configuration (see {@link loadConfig}). */
export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  host: string;
  /** Public base address, used in error `type` URIs and printed URLs; no trailing slash. */
  baseUrl: string;
  /** PostgreSQL server; PGlite in {@link Config.dataDir} when undefined. */
  databaseUrl: string | undefined;
  dataDir: string;
  redisUrl: string | undefined;
  logLevel: string;
  rateLimit: { max: number; windowMs: number };
  database: {
    /** Connections of the PostgreSQL pool (`DATABASE_POOL_SIZE`). */
    poolSize: number;
    /** Longest a request's statement may run before PostgreSQL cancels it. */
    statementTimeoutMs: number;
    /**
     * A streaming standby (`DATABASE_REPLICA_URL`) read operations may run on once it has replayed
     * their tenant's last write; undefined: every statement runs on {@link Config.databaseUrl}.
     */
    replicaUrl: string | undefined;
    /** Replay lag of the standby past which every read runs on the primary (`DATABASE_REPLICA_MAX_LAG_MS`). */
    replicaMaxLagMs: number;
  };
  /** One tenant's share of the database (the bulkhead in front of the pool). */
  tenantShare: {
    /** Database connections one tenant's requests may hold at once (at most the pool size). */
    dbConcurrency: number;
    /** How long a request waits for its tenant's share before it is answered 429. */
    queueMs: number;
    /** Sustained rate of one tenant's large read responses (twice this may go at once). */
    responseBytesPerS: number;
  };
  /** Connection timeouts of the HTTP server. */
  http: {
    /** Complete request headers must arrive within this. */
    headersTimeoutMs: number;
    /** The complete request (headers and body) must arrive within this. */
    requestTimeoutMs: number;
    /** A connection with no traffic at all is closed after this. */
    idleTimeoutMs: number;
  };
  /** How long the first response of an `Idempotency-Key` is kept and replayed, in seconds. */
  idempotencyTtlS: number;
  /** How long a process trusts a looked-up API key, in seconds: a revocation takes effect within it. */
  authCacheTtlS: number;
  /** Which `X-Forwarded-For` hops are trusted for the client address (Fastify's `trustProxy`). */
  trustProxy: boolean | number | string[];
  /**
   * Origins of browser pages allowed to call the API (`CORS_ALLOWED_ORIGINS`), exactly as browsers
   * send them in `Origin`; empty: no response carries CORS headers.
   */
  corsAllowedOrigins: string[];
  /** How long SIGTERM waits for in-flight requests and deliveries before the process exits anyway. */
  shutdownGraceMs: number;
  /** Whether `serve`, `start` and `dispatch` apply pending migrations (else refuse to start on them). */
  migrateOnStart: boolean;
  /** Port of the `dispatch` process's `/healthz` and `/readyz`; undefined: it listens nowhere. */
  dispatchPort: number | undefined;
  /** Port of `GET /metrics` (Prometheus) of `serve` and `dispatch`; undefined: metrics are off. */
  metricsPort: number | undefined;
  /**
   * Keys sealing webhook signing secrets at rest (`SECRETS_ENCRYPTION_KEYS`), newest first: the first
   * seals, all open. Undefined: a key kept in {@link Config.dataDir} (see `secrets/keyring.ts`).
   */
  secretsEncryptionKeys: readonly EncryptionKey[] | undefined;
  /** Asset content uploads and their download links. */
  assets: {
    /** Largest content or preview one upload may store (`ASSET_MAX_BYTES`). */
    maxBytes: number;
    /** How long a signed download link stays valid, in seconds (`ASSET_URL_TTL_S`). */
    urlTtlS: number;
  };
  webhooks: {
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
  };
}

/** Thrown when the environment is invalid; the message lists every bad variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** A URL's password replaced by `***` (`scheme://user:***@host`), so start-up errors never print it. */
export function maskCredentials(value: string): string {
  return value.replace(/(\/\/[^/@\s]*?:)[^/@\s]*@/g, '$1***@');
}

/**
 * Parses the environment into a {@link Config}. This is the only reader of `process.env`:
 * everything else receives the parsed config. Every bad variable is reported at once.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const result = EnvSchema.safeParse(env);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? 'environment');
      return `  ${name}=${JSON.stringify(maskCredentials(env[name] ?? ''))}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid environment:\n${lines.join('\n')}`);
  }
  const e = result.data;
  if (e.NODE_ENV === 'production' && !e.DATABASE_URL && !env.DATA_DIR?.trim()) {
    // A production server on the embedded database must say where its data lives.
    throw new ConfigError(
      'Invalid environment:\n  NODE_ENV=production needs DATABASE_URL (PostgreSQL), or DATA_DIR set explicitly for the embedded database',
    );
  }
  if (e.DATABASE_REPLICA_URL && !e.DATABASE_URL) {
    // A standby follows a PostgreSQL primary; the embedded database has none.
    throw new ConfigError(
      'Invalid environment:\n  DATABASE_REPLICA_URL: needs DATABASE_URL (the primary the standby follows)',
    );
  }
  const secretsEncryptionKeys = encryptionKeys(e.SECRETS_ENCRYPTION_KEYS, e.NODE_ENV, e.DATABASE_URL);
  const leaseMs = e.WEBHOOKS_LEASE_MS ?? e.WEBHOOKS_TIMEOUT_MS + 60_000;
  const retrySpanS = e.WEBHOOKS_RETRY_SCHEDULE.reduce((total, s) => total + s, 0);
  if (e.WEBHOOKS_RETENTION_DAYS * 86_400 <= retrySpanS) {
    throw new ConfigError(
      `Invalid environment:\n  WEBHOOKS_RETENTION_DAYS=${e.WEBHOOKS_RETENTION_DAYS}: must exceed the retry schedule's ${(retrySpanS / 86_400).toFixed(2)} days (WEBHOOKS_RETRY_SCHEDULE), so no attempt outlives its event`,
    );
  }
  if (leaseMs <= e.WEBHOOKS_TIMEOUT_MS) {
    // A lease that ends before the send's timeout would let another dispatcher send it meanwhile.
    throw new ConfigError(
      `Invalid environment:\n  WEBHOOKS_LEASE_MS=${leaseMs}: must exceed WEBHOOKS_TIMEOUT_MS (${e.WEBHOOKS_TIMEOUT_MS})`,
    );
  }
  const displayHost = e.HOST === '0.0.0.0' || e.HOST === '::' ? '127.0.0.1' : e.HOST;
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    baseUrl: (e.BASE_URL ?? `http://${displayHost}:${e.PORT}`).replace(/\/+$/, ''),
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    redisUrl: e.REDIS_URL,
    logLevel: e.LOG_LEVEL,
    rateLimit: { max: e.RATE_LIMIT_MAX, windowMs: e.RATE_LIMIT_WINDOW_MS },
    database: {
      poolSize: e.DATABASE_POOL_SIZE,
      statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      replicaUrl: e.DATABASE_REPLICA_URL,
      replicaMaxLagMs: e.DATABASE_REPLICA_MAX_LAG_MS,
    },
    tenantShare: {
      dbConcurrency: Math.min(e.TENANT_DB_CONCURRENCY, e.DATABASE_POOL_SIZE),
      queueMs: e.TENANT_DB_QUEUE_MS,
      responseBytesPerS: e.TENANT_RESPONSE_BYTES_PER_S,
    },
    http: {
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      idleTimeoutMs: e.HTTP_IDLE_TIMEOUT_MS,
    },
    idempotencyTtlS: e.IDEMPOTENCY_TTL_S,
    authCacheTtlS: e.AUTH_CACHE_TTL_S,
    assets: { maxBytes: e.ASSET_MAX_BYTES, urlTtlS: e.ASSET_URL_TTL_S },
    trustProxy: e.TRUST_PROXY,
    corsAllowedOrigins: e.CORS_ALLOWED_ORIGINS,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    migrateOnStart: e.MIGRATE_ON_START,
    dispatchPort: e.DISPATCH_PORT,
    metricsPort: e.METRICS_PORT,
    secretsEncryptionKeys,
    webhooks: {
      allowInsecure: e.WEBHOOKS_ALLOW_INSECURE,
      retryScheduleSeconds: e.WEBHOOKS_RETRY_SCHEDULE,
      timeoutMs: e.WEBHOOKS_TIMEOUT_MS,
      leaseMs,
      dispatchInServer: e.WEBHOOKS_DISPATCHER,
      maxSubscriptions: e.WEBHOOKS_MAX_SUBSCRIPTIONS,
      concurrency: e.WEBHOOKS_CONCURRENCY,
      tenantConcurrency: Math.min(e.WEBHOOKS_TENANT_CONCURRENCY, e.WEBHOOKS_CONCURRENCY),
      retentionDays: e.WEBHOOKS_RETENTION_DAYS,
    },
  };
}

/**
 * The keys of `SECRETS_ENCRYPTION_KEYS`, checked strictly. A production server on PostgreSQL must
 * have them: a key generated into a data directory would sit beside nothing it protects.
 */
function encryptionKeys(
  value: string | undefined,
  nodeEnv: string,
  databaseUrl: string | undefined,
): EncryptionKey[] | undefined {
  if (value === undefined) {
    if (nodeEnv === 'production' && databaseUrl) {
      throw new ConfigError(
        `Invalid environment:\n  ${SECRETS_KEYS_VARIABLE}: required with NODE_ENV=production and DATABASE_URL ` +
          '(the keys that encrypt webhook signing secrets; make one with `openssl rand -base64 32`)',
      );
    }
    return undefined;
  }
  try {
    return parseEncryptionKeys(value);
  } catch (err) {
    if (!(err instanceof EncryptionKeysError)) throw err;
    throw new ConfigError(
      `Invalid environment:\n  ${SECRETS_KEYS_VARIABLE} (value not shown): ${err.message}`,
    );
  }
}

/** Settings of the test helpers (read here too, so that this stays the only reader of `process.env`). */
export function loadTestSettings(env: Record<string, string | undefined> = process.env): {
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  logLevel: string;
} {
  return {
    databaseUrl: env.TEST_DATABASE_URL || undefined,
    redisUrl: env.TEST_REDIS_URL || undefined,
    logLevel: env.LOG_LEVEL || 'silent',
  };
}
