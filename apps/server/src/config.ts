import { z } from 'zod';
import { DATABASE_ENV, type DatabaseConfig, databaseConfig } from './config/database.js';
import { HTTP_ENV, type HttpConfig, httpConfig } from './config/http.js';
import { encryptionKeys } from './config/secrets.js';
import { ConfigError, optionalPort, optionalText, positiveInt, urlOf } from './config/values.js';
import { WEBHOOKS_ENV, type WebhooksConfig, webhooksConfig } from './config/webhooks.js';
import type { EncryptionKey } from './secrets/secret-box.js';

export { ConfigError } from './config/values.js';

// Each concern's variables and their reading live beside it in config/; this assembles them.
const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  ...HTTP_ENV,
  ...DATABASE_ENV,
  ...WEBHOOKS_ENV,
  REDIS_URL: urlOf(/^rediss?:\/\//, 'must start with redis:// or rediss://'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RATE_LIMIT_MAX: positiveInt(1000),
  RATE_LIMIT_WINDOW_MS: positiveInt(60_000, 1000),
  IDEMPOTENCY_TTL_S: positiveInt(86_400),
  AUTH_CACHE_TTL_S: z.coerce.number<number>().int().min(0).max(3600).default(30),
  ASSET_MAX_BYTES: positiveInt(100 * 1024 * 1024),
  ASSET_URL_TTL_S: z.coerce
    .number<number>()
    .int()
    .min(1)
    .max(7 * 86_400)
    .default(900),
  DISPATCH_PORT: optionalPort,
  METRICS_PORT: optionalPort,
  // Validated apart (parseEncryptionKeys), so that no error message ever prints a key.
  SECRETS_ENCRYPTION_KEYS: optionalText,
});

/** Validated server configuration (see {@link loadConfig}). */
export interface Config extends HttpConfig, DatabaseConfig {
  nodeEnv: 'development' | 'production' | 'test';
  redisUrl: string | undefined;
  logLevel: string;
  rateLimit: { max: number; windowMs: number };
  /** How long the first response of an `Idempotency-Key` is kept and replayed, in seconds. */
  idempotencyTtlS: number;
  /** How long a process trusts a looked-up API key, in seconds: a revocation takes effect within it. */
  authCacheTtlS: number;
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
  webhooks: WebhooksConfig;
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
  const production = e.NODE_ENV === 'production';
  const database = databaseConfig(e, production, Boolean(env.DATA_DIR?.trim()));
  const secretsEncryptionKeys = encryptionKeys(e.SECRETS_ENCRYPTION_KEYS, production, e.DATABASE_URL);
  return {
    nodeEnv: e.NODE_ENV,
    ...httpConfig(e),
    ...database,
    redisUrl: e.REDIS_URL,
    logLevel: e.LOG_LEVEL,
    rateLimit: { max: e.RATE_LIMIT_MAX, windowMs: e.RATE_LIMIT_WINDOW_MS },
    idempotencyTtlS: e.IDEMPOTENCY_TTL_S,
    authCacheTtlS: e.AUTH_CACHE_TTL_S,
    assets: { maxBytes: e.ASSET_MAX_BYTES, urlTtlS: e.ASSET_URL_TTL_S },
    dispatchPort: e.DISPATCH_PORT,
    metricsPort: e.METRICS_PORT,
    secretsEncryptionKeys,
    webhooks: webhooksConfig(e),
  };
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
