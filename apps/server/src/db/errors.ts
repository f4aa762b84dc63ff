/** The fields of a PostgreSQL error that code may branch on. */
export interface PgErrorInfo {
  code: string | undefined;
  constraint: string | undefined;
  message: string;
}

/** The message of a database call abandoned after its deadline (the link may be lost). */
export const DATABASE_DEADLINE_MESSAGE = 'The database did not answer in time';

/**
 * SQLSTATEs and network codes meaning "the database cannot be reached right now". 25006
 * (read-only transaction): the connection reached a node that is no longer the primary, as for a
 * moment during a switchover.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '53000', '25006']);
const UNAVAILABLE_NET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EPIPE',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
]);
const UNAVAILABLE_MESSAGES = [
  'PGlite is closed',
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Cannot use a pool after calling end on the pool',
  'Client has encountered a connection error',
  'database connection is closed',
  'Query read timeout',
  DATABASE_DEADLINE_MESSAGE,
  // Citus (XX000) when a worker's connection that the transaction already used is lost.
  'failure on connection marked as essential',
];

/** Errors and their causes, outermost first (drizzle wraps driver errors in `cause`). */
function* causeChain(err: unknown): Generator<Record<string, unknown>> {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth += 1) {
    yield current as Record<string, unknown>;
    current = (current as { cause?: unknown }).cause;
  }
}

/** The first error of class `type` in the cause chain (drizzle wraps what the pool throws). */
export function causeOf<T>(err: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  for (const e of causeChain(err)) if (e instanceof type) return e as T;
  return undefined;
}

/** True when PostgreSQL cancelled the statement (SQLSTATE 57014: the pool's `statement_timeout`). */
export function isStatementTimeout(err: unknown): boolean {
  return pgErrorOf(err)?.code === '57014';
}

/** Finds the driver error (with a SQLSTATE `code`) inside a possibly wrapped error. */
export function pgErrorOf(err: unknown): PgErrorInfo | undefined {
  for (const e of causeChain(err)) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) {
      return {
        code: e.code,
        constraint: typeof e.constraint === 'string' ? e.constraint : undefined,
        message: String(e.message ?? ''),
      };
    }
  }
  return undefined;
}

/** True when the error means the database is down or unreachable (answered as 503). */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (const e of causeChain(err)) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08') || UNAVAILABLE_NET_CODES.has(code))
      return true;
    // Whatever a failed connect reports (EINVAL for a route that drops everything, say).
    if (e.syscall === 'connect') return true;
    const message = typeof e.message === 'string' ? e.message : '';
    if (UNAVAILABLE_MESSAGES.some((m) => message.includes(m))) return true;
  }
  return false;
}

/** True when the error is a unique violation of the named constraint. */
export function isUniqueViolation(err: unknown, constraint: string): boolean {
  const pg = pgErrorOf(err);
  return pg?.code === '23505' && (pg.constraint === constraint || pg.message.includes(constraint));
}

/**
 * True for SQLSTATE class 22 (data exception): values PostgreSQL cannot store, such as a NUL
 * character in text. Those come from client input, so they are answered as 400, not 500.
 */
export function isDataException(err: unknown): boolean {
  return pgErrorOf(err)?.code?.startsWith('22') ?? false;
}
