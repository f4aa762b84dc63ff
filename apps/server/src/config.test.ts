import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      baseUrl: 'http://127.0.0.1:3000',
      databaseUrl: undefined,
      dataDir: './.data',
      rateLimit: { max: 1000, windowMs: 60_000 },
      webhooks: { allowInsecure: false, timeoutMs: 10_000 },
    });
  });

  it('reads every on/off setting the same way: 1/true, 0/false, empty or unset is its default', () => {
    const read = (value: string | undefined) => {
      const env =
        value === undefined
          ? {}
          : { WEBHOOKS_ALLOW_INSECURE: value, WEBHOOKS_DISPATCHER: value, MIGRATE_ON_START: value };
      const config = loadConfig(env);
      return [config.webhooks.allowInsecure, config.webhooks.dispatchInServer, config.migrateOnStart];
    };
    expect(read(undefined)).toEqual([false, true, true]);
    expect(read('')).toEqual([false, true, true]);
    expect(read('1')).toEqual([true, true, true]);
    expect(read('true')).toEqual([true, true, true]);
    expect(read('0')).toEqual([false, false, false]);
    expect(read('false')).toEqual([false, false, false]);
    expect(() => loadConfig({ MIGRATE_ON_START: 'yes' })).toThrow(ConfigError);
  });

  it('parses every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      BASE_URL: 'https://api.example.com/',
      DATABASE_URL: 'postgres://u@h/db',
      REDIS_URL: 'redis://h:6379',
      RATE_LIMIT_MAX: '5',
      RATE_LIMIT_WINDOW_MS: '2000',
      WEBHOOKS_ALLOW_INSECURE: '1',
      WEBHOOKS_RETRY_SCHEDULE: '1, 2,4',
      WEBHOOKS_TIMEOUT_MS: '500',
      LOG_LEVEL: 'warn',
    });
    expect(config).toMatchObject({
      port: 8080,
      baseUrl: 'https://api.example.com',
      databaseUrl: 'postgres://u@h/db',
      redisUrl: 'redis://h:6379',
      rateLimit: { max: 5, windowMs: 2000 },
      webhooks: { allowInsecure: true, retryScheduleSeconds: [1, 2, 4], timeoutMs: 500 },
      logLevel: 'warn',
    });
  });

  it('parses the operator settings: TRUST_PROXY, SHUTDOWN_GRACE_MS, MIGRATE_ON_START, AUTH_CACHE_TTL_S', () => {
    expect(loadConfig({})).toMatchObject({
      trustProxy: false,
      shutdownGraceMs: 10_000,
      migrateOnStart: true,
      authCacheTtlS: 30,
    });
    const trust = (value: string) => loadConfig({ TRUST_PROXY: value }).trustProxy;
    expect([trust('0'), trust('false'), trust('1'), trust('2'), trust('true')]).toEqual([
      false,
      false,
      1,
      2,
      true,
    ]);
    expect(trust('10.0.0.0/8, 192.168.1.7,loopback, fd00::/8')).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      'loopback',
      'fd00::/8',
    ]);
    expect(
      loadConfig({ SHUTDOWN_GRACE_MS: '30000', MIGRATE_ON_START: '0', AUTH_CACHE_TTL_S: '0' }),
    ).toMatchObject({ shutdownGraceMs: 30_000, migrateOnStart: false, authCacheTtlS: 0 });
    for (const [name, value] of [
      ['TRUST_PROXY', 'yes'],
      ['TRUST_PROXY', '10.0.0.0/33'],
      ['TRUST_PROXY', '17'],
      ['SHUTDOWN_GRACE_MS', '-1'],
      ['MIGRATE_ON_START', 'maybe'],
      ['AUTH_CACHE_TTL_S', '3601'],
    ] as const) {
      expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrow(`${name}=`);
    }
  });

  it('admits no browser origin by default, and exactly the origins CORS_ALLOWED_ORIGINS lists', () => {
    expect(loadConfig({}).corsAllowedOrigins).toEqual([]);
    expect(loadConfig({ CORS_ALLOWED_ORIGINS: ' ' }).corsAllowedOrigins).toEqual([]);
    expect(
      loadConfig({
        CORS_ALLOWED_ORIGINS:
          'https://app.example.com, http://localhost:5173,http://[::1]:8080,https://app.example.com',
      }).corsAllowedOrigins,
    ).toEqual(['https://app.example.com', 'http://localhost:5173', 'http://[::1]:8080']);
  });

  it('refuses a CORS origin with a path, a wildcard or another scheme, saying how to write it', () => {
    const refusal = (value: string) => {
      try {
        loadConfig({ CORS_ALLOWED_ORIGINS: value });
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(refusal('*')).toMatch(/CORS_ALLOWED_ORIGINS="\*": list each origin/);
    expect(refusal('https://app.example.com/')).toContain('write https://app.example.com');
    expect(refusal('https://app.example.com/admin')).toContain('write https://app.example.com');
    expect(refusal('https://App.Example.com')).toContain('write https://app.example.com');
    expect(refusal('https://app.example.com:443')).toContain('write https://app.example.com');
    expect(refusal('app.example.com')).toContain('is not an origin such as https://app.example.com');
    expect(refusal('ftp://files.example.com')).toContain('must start with http:// or https://');
    expect(refusal('null')).toContain('is not an origin');
    expect(refusal('https://ok.example.com,https://ok.example.com/x')).toContain(
      'write https://ok.example.com',
    );
  });

  it('in production, refuses the embedded database unless DATA_DIR is explicit', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(
      /NODE_ENV=production needs DATABASE_URL \(PostgreSQL\), or DATA_DIR set explicitly/,
    );
    expect(() => loadConfig({ NODE_ENV: 'production', DATA_DIR: ' ' })).toThrow(ConfigError);
    expect(loadConfig({ NODE_ENV: 'production', DATA_DIR: '/var/lib/customer-api' }).dataDir).toBe(
      '/var/lib/customer-api',
    );
    const key = Buffer.alloc(32, 1).toString('base64');
    expect(
      loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://u@h/db', SECRETS_ENCRYPTION_KEYS: key })
        .databaseUrl,
    ).toBe('postgres://u@h/db');
  });

  it('takes SECRETS_ENCRYPTION_KEYS newest first, and needs it in production on PostgreSQL only', () => {
    const [newer, older] = [2, 3].map((byte) => Buffer.alloc(32, byte).toString('base64'));
    const keys = loadConfig({ SECRETS_ENCRYPTION_KEYS: ` ${newer}, ${older} ` }).secretsEncryptionKeys;
    expect(keys?.map((k) => k.key.toString('base64'))).toEqual([newer, older]);
    expect(new Set(keys?.map((k) => k.id)).size).toBe(2);
    expect(loadConfig({}).secretsEncryptionKeys).toBeUndefined();
    expect(
      loadConfig({ NODE_ENV: 'production', DATA_DIR: '/srv/data' }).secretsEncryptionKeys,
    ).toBeUndefined();
    expect(() => loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://u@h/db' })).toThrow(
      /SECRETS_ENCRYPTION_KEYS: required with NODE_ENV=production and DATABASE_URL/,
    );
  });

  it('keeps webhook attempts 30 days by default, and refuses a retention the retry schedule outlives', () => {
    expect(loadConfig({}).webhooks.retentionDays).toBe(30);
    expect(loadConfig({}).webhooks.purgeIntervalS).toBe(3600);
    expect(loadConfig({ WEBHOOKS_PURGE_INTERVAL_S: '5' }).webhooks.purgeIntervalS).toBe(5);
    for (const bad of ['0', '86401', '1.5']) {
      expect(() => loadConfig({ WEBHOOKS_PURGE_INTERVAL_S: bad }), bad).toThrow(ConfigError);
    }
    expect(loadConfig({ WEBHOOKS_RETENTION_DAYS: '2' }).webhooks.retentionDays).toBe(2);
    // The default schedule spans 1.15 days.
    expect(() => loadConfig({ WEBHOOKS_RETENTION_DAYS: '1' })).toThrow(
      /WEBHOOKS_RETENTION_DAYS=1: must exceed the retry schedule's 1\.15 days/,
    );
    expect(
      loadConfig({ WEBHOOKS_RETENTION_DAYS: '1', WEBHOOKS_RETRY_SCHEDULE: '1,2,4' }).webhooks.retentionDays,
    ).toBe(1);
    for (const bad of ['0', '3651', '1.5', 'a month'])
      expect(() => loadConfig({ WEBHOOKS_RETENTION_DAYS: bad }), bad).toThrow(ConfigError);
  });

  it('treats empty URLs as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', REDIS_URL: ' ' })).toMatchObject({
      databaseUrl: undefined,
      redisUrl: undefined,
    });
  });

  it('reports every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        RATE_LIMIT_MAX: '0',
        WEBHOOKS_RETRY_SCHEDULE: '1,x',
        LOG_LEVEL: 'loud',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const name of ['PORT', 'DATABASE_URL', 'RATE_LIMIT_MAX', 'WEBHOOKS_RETRY_SCHEDULE', 'LOG_LEVEL']) {
      expect(message).toContain(`${name}=`);
    }
  });

  it('reads from a replica only beside a PostgreSQL primary, with a 5 s lag bound by default', () => {
    expect(loadConfig({}).database).toMatchObject({ replicaUrl: undefined, replicaMaxLagMs: 5_000 });
    expect(
      loadConfig({
        DATABASE_URL: 'postgres://u@primary/db',
        DATABASE_REPLICA_URL: 'postgres://u@replica/db',
        DATABASE_REPLICA_MAX_LAG_MS: '250',
      }).database,
    ).toMatchObject({ replicaUrl: 'postgres://u@replica/db', replicaMaxLagMs: 250 });
    expect(() => loadConfig({ DATABASE_REPLICA_URL: 'postgres://u@replica/db' })).toThrow(
      /DATABASE_REPLICA_URL: needs DATABASE_URL/,
    );
    expect(() =>
      loadConfig({
        DATABASE_URL: 'postgres://u@primary/db',
        DATABASE_REPLICA_URL: 'mysql://u:secret@replica',
      }),
    ).toThrow(/DATABASE_REPLICA_URL="mysql:\/\/u:\*\*\*@replica": must start with postgres/);
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgres://u@primary/db', DATABASE_REPLICA_MAX_LAG_MS: '-1' }),
    ).toThrow(/DATABASE_REPLICA_MAX_LAG_MS=/);
  });
});
