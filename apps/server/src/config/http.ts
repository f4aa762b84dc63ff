import { isIP } from 'node:net';
import { z } from 'zod';
import { positiveInt } from './values.js';

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

/** The variables of the HTTP server: where it listens, who may call it, its connection timeouts. */
export const HTTP_ENV = {
  PORT: z.coerce.number<number>().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  BASE_URL: z.url().optional(),
  HTTP_HEADERS_TIMEOUT_MS: positiveInt(10_000, 100),
  HTTP_REQUEST_TIMEOUT_MS: positiveInt(30_000, 100),
  HTTP_IDLE_TIMEOUT_MS: positiveInt(60_000, 100),
  TRUST_PROXY: trustProxy,
  CORS_ALLOWED_ORIGINS: corsOrigins,
  SHUTDOWN_GRACE_MS: positiveInt(10_000, 0),
};

type HttpEnv = z.output<z.ZodObject<typeof HTTP_ENV>>;

/** Connection timeouts of the HTTP server. */
export interface HttpTimeouts {
  /** Complete request headers must arrive within this. */
  headersTimeoutMs: number;
  /** The complete request (headers and body) must arrive within this. */
  requestTimeoutMs: number;
  /** A connection with no traffic at all is closed after this. */
  idleTimeoutMs: number;
}

/** The HTTP server's settings as the config holds them. */
export interface HttpConfig {
  port: number;
  host: string;
  /** Public base address, used in error `type` URIs and printed URLs; no trailing slash. */
  baseUrl: string;
  http: HttpTimeouts;
  /** Which `X-Forwarded-For` hops are trusted for the client address (Fastify's `trustProxy`). */
  trustProxy: boolean | number | string[];
  /**
   * Origins of browser pages allowed to call the API (`CORS_ALLOWED_ORIGINS`), exactly as browsers
   * send them in `Origin`; empty: no response carries CORS headers.
   */
  corsAllowedOrigins: string[];
  /** How long SIGTERM waits for in-flight requests and deliveries before the process exits anyway. */
  shutdownGraceMs: number;
}

/** The HTTP server's settings from its variables. */
export function httpConfig(e: HttpEnv): HttpConfig {
  const displayHost = e.HOST === '0.0.0.0' || e.HOST === '::' ? '127.0.0.1' : e.HOST;
  return {
    port: e.PORT,
    host: e.HOST,
    baseUrl: (e.BASE_URL ?? `http://${displayHost}:${e.PORT}`).replace(/\/+$/, ''),
    http: {
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      idleTimeoutMs: e.HTTP_IDLE_TIMEOUT_MS,
    },
    trustProxy: e.TRUST_PROXY,
    corsAllowedOrigins: e.CORS_ALLOWED_ORIGINS,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
  };
}
