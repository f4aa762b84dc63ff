// Our server as production runs it: `customer-api serve`, NODE_ENV=production (response
// validation off), rate limiting in Redis, no in-process webhook dispatcher.
import { randomBytes } from 'node:crypto';
import { tcpAnswers } from '@customer-api/test-server';
import { freePort, SERVER_MAIN, type ServerHandle, startProcess } from './proc.js';

/** The key of stored secrets of every server this run starts (a restart reads what the last one sealed). */
const SECRETS_KEY = randomBytes(32).toString('base64');

/**
 * Redis of the rate limiter (a database number of its own); read when a server starts, so that a
 * smoke run can switch it off (BENCH_REDIS_URL='': rate-limit counts in the server's memory).
 */
const benchRedisUrl = () => process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/7';

/** Whether the rate limiter's Redis accepts a TCP connection within a second. */
export function redisAnswers(): Promise<boolean> {
  const url = benchRedisUrl();
  return url ? tcpAnswers(url, 6379) : Promise.resolve(false);
}

/**
 * Starts our server (`main`: this checkout's build unless another's is given) on `bin` against
 * PostgreSQL (`databaseUrl`) or PGlite (`dataDir`).
 */
export async function startOurs({
  name,
  bin,
  main = SERVER_MAIN,
  databaseUrl,
  dataDir,
  env = {},
}: {
  name: string;
  bin: string;
  main?: string;
  databaseUrl?: string | undefined;
  dataDir?: string | undefined;
  env?: Record<string, string>;
}): Promise<ServerHandle> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  return startProcess({
    name,
    bin,
    args: [main, 'serve'],
    url,
    readyPath: '/readyz',
    env: {
      NODE_ENV: 'production',
      SECRETS_ENCRYPTION_KEYS: SECRETS_KEY,
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: databaseUrl ?? '',
      ...(dataDir ? { DATA_DIR: dataDir } : {}),
      REDIS_URL: databaseUrl ? benchRedisUrl() : '',
      RATE_LIMIT_MAX: '1000000000',
      WEBHOOKS_DISPATCHER: '0',
      ...env,
    },
  });
}

/** JSON request to a running server with an API key. */
export async function api<T = Record<string, unknown>>(
  url: string,
  apiKey: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'x-api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}
