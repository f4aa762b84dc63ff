/** Log levels, least to most severe; `silent` logs nothing. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A structured logger writing JSON lines. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * A logger writing one JSON object per line to stderr (stdout belongs to the MCP protocol in
 * stdio mode). API keys and tool arguments are never logged.
 */
export function createLogger(
  level: LogLevel = 'info',
  write = (line: string) => process.stderr.write(line),
): Logger {
  const threshold = LOG_LEVELS.indexOf(level);
  const at =
    (name: Exclude<LogLevel, 'silent'>) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (LOG_LEVELS.indexOf(name) < threshold) return;
      write(`${JSON.stringify({ time: new Date().toISOString(), level: name, msg: message, ...fields })}\n`);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** A logger that drops everything. */
export const silentLogger: Logger = createLogger('silent');

/** The message and stack of an error, for logs only. */
export function errorFields(error: unknown): Record<string, unknown> {
  return error instanceof Error ? { err: error.message, stack: error.stack } : { err: String(error) };
}
