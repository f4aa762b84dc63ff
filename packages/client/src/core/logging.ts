import { readEnv } from './env.js';

/**
 * Where the client writes its log lines: `console` by default, or any object with these methods
 * (pino, winston, a test spy). `fields` carries structured data; API keys are already redacted.
 */
export interface ClientLogger {
  debug(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** How much the client logs: `debug` (every request and response), `warn` (deprecations; the default) or `off`. */
export type LogLevel = 'debug' | 'warn' | 'off';

const LEVELS: readonly LogLevel[] = ['debug', 'warn', 'off'];

/** The level from the option, else `CUSTOMER_API_LOG`, else `warn`. */
export function resolveLogLevel(option: LogLevel | undefined): LogLevel {
  const fromEnv = readEnv('CUSTOMER_API_LOG')?.trim().toLowerCase();
  const level = option ?? LEVELS.find((candidate) => candidate === fromEnv) ?? 'warn';
  if (!LEVELS.includes(level)) throw new RangeError(`logLevel must be one of ${LEVELS.join(', ')}`);
  return level;
}

/** A logger that drops what is below `level`. */
export interface LevelledLogger {
  readonly debugEnabled: boolean;
  debug(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** Wraps `logger` (default `console`) so calls below `level` cost nothing. */
export function levelled(logger: ClientLogger | undefined, level: LogLevel): LevelledLogger {
  const target = logger ?? console;
  return {
    debugEnabled: level === 'debug',
    debug: (message, fields) => {
      if (level === 'debug') target.debug(message, fields);
    },
    warn: (message, fields) => {
      if (level !== 'off') target.warn(message, fields);
    },
  };
}

const SECRET_HEADERS = new Set(['x-api-key', 'authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

/** Headers with secrets replaced by `[redacted]`, for logs. */
export function redactHeaders(headers: Record<string, string> | Headers): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = headers instanceof Headers ? [...headers] : Object.entries(headers);
  for (const [key, value] of entries) {
    out[key] = SECRET_HEADERS.has(key.toLowerCase()) ? '[redacted]' : value;
  }
  return out;
}
