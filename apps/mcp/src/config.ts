import { parseArgs } from 'node:util';
import { DEFAULT_BASE_URL } from '@customer-api/client';
import { LOG_LEVELS, type LogLevel } from './log.js';
import { deriveTools } from './tools/derive.js';
import { DEFAULT_MAX_RESULT_BYTES } from './tools/result.js';
import { SelectionError, selectTools, TOOLSETS, type ToolSelection } from './tools/select.js';

/** Port of the Streamable HTTP transport unless `--port` says otherwise. */
export const DEFAULT_HTTP_PORT = 3001;

/** Everything `customer-api-mcp` is configured with, from its arguments and environment. */
export interface McpConfig {
  transport: 'stdio' | 'http';
  /** Root of the Customer API (`CUSTOMER_API_BASE_URL`). */
  baseUrl: string;
  /** API key for stdio (`CUSTOMER_API_KEY`); HTTP takes each client's key from its request. */
  apiKey: string | undefined;
  selection: ToolSelection;
  maxResultBytes: number;
  http: { port: number; host: string; allowedHosts: string[]; allowedOrigins: string[]; sharedKey: boolean };
  logLevel: LogLevel;
  /** Confirmation of deletes (`MCP_CONFIRM`, `MCP_CONFIRM_SECRET`). */
  confirm: { enabled: boolean; secret: string | undefined };
}

/** Invalid arguments or environment; the message says what to change. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** `--help` text. */
export const USAGE = `Usage: customer-api-mcp [options]

Serves every Customer API operation as an MCP tool: over stdio by default, or over
Streamable HTTP with --http.

Options:
  --http                     serve Streamable HTTP (stateless) instead of stdio
  --port <n>                 HTTP port (default ${DEFAULT_HTTP_PORT})
  --host <name>              HTTP interface to bind (default 127.0.0.1)
  --allowed-hosts <a,b>      extra Host header names accepted over HTTP (DNS rebinding guard)
  --allowed-origins <a,b>    extra Origin values accepted over HTTP (loopback origins always are)
  --shared-key               over HTTP, serve requests without a key of their own with
                             CUSTOMER_API_KEY (single-user setups; off by default)
  --read-only                list only tools that change nothing
  --toolsets <a,b>           only these toolsets: ${TOOLSETS.join(', ')}
  --tools <a,b>              only these tools, e.g. list_pages,get_audience_messages
  --max-result-bytes <n>     hard cap on one tool result's JSON (default ${DEFAULT_MAX_RESULT_BYTES})
  --log-level <level>        ${LOG_LEVELS.join(', ')} (default info; logs go to stderr)
  --help                     show this text

Environment:
  CUSTOMER_API_KEY           API key (stdio; over HTTP each client sends x-api-key or Authorization: Bearer)
  CUSTOMER_API_BASE_URL      API root (default ${DEFAULT_BASE_URL})
  MCP_CONFIRM                0: run deletes without asking the user (default 1: ask, where the
                             client can show a question)
  MCP_CONFIRM_SECRET         key (32+ characters) signing the confirmation state; give every
                             replica behind one address the same (default: random per process)`;

function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

function integer(
  name: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}`);
  return n;
}

/**
 * Reads the configuration from command-line arguments and environment variables.
 * Returns `'help'` for `--help`.
 * @throws ConfigError with a message naming the bad option.
 */
export function parseConfig(argv: string[], env: NodeJS.ProcessEnv): McpConfig | 'help' {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(argv).values;
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  if (values.help) return 'help';
  const logLevel = (values['log-level'] ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel))
    throw new ConfigError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  const selection: ToolSelection = {
    readOnly: values['read-only'] ?? false,
    toolsets: list(values.toolsets),
    tools: list(values.tools),
  };
  try {
    selectTools(deriveTools(), selection);
  } catch (error) {
    if (error instanceof SelectionError) throw new ConfigError(error.message);
    throw error;
  }
  const baseUrl = env.CUSTOMER_API_BASE_URL || DEFAULT_BASE_URL;
  if (!URL.canParse(baseUrl)) throw new ConfigError(`CUSTOMER_API_BASE_URL is not a URL: ${baseUrl}`);
  const transport = values.http ? 'http' : 'stdio';
  const apiKey = env.CUSTOMER_API_KEY || undefined;
  if ((transport === 'stdio' || values['shared-key']) && !apiKey) {
    throw new ConfigError(
      'Set CUSTOMER_API_KEY to an API key of the Customer API (see `customer-api keys create`).',
    );
  }
  return {
    transport,
    confirm: parseConfirm(env),
    baseUrl,
    apiKey,
    selection,
    maxResultBytes: integer(
      '--max-result-bytes',
      values['max-result-bytes'],
      DEFAULT_MAX_RESULT_BYTES,
      1_000,
      10_000_000,
    ),
    http: {
      port: integer('--port', values.port, DEFAULT_HTTP_PORT, 0, 65_535),
      host: values.host ?? '127.0.0.1',
      allowedHosts: list(values['allowed-hosts']) ?? [],
      allowedOrigins: list(values['allowed-origins']) ?? [],
      sharedKey: values['shared-key'] ?? false,
    },
    logLevel,
  };
}

function parseConfirm(env: NodeJS.ProcessEnv): McpConfig['confirm'] {
  const flag = env.MCP_CONFIRM ?? '1';
  if (flag !== '0' && flag !== '1') throw new ConfigError('MCP_CONFIRM must be 0 or 1');
  const secret = env.MCP_CONFIRM_SECRET || undefined;
  if (secret !== undefined && Buffer.byteLength(secret) < 32)
    throw new ConfigError('MCP_CONFIRM_SECRET must be at least 32 bytes long');
  return { enabled: flag === '1', secret };
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      http: { type: 'boolean' },
      port: { type: 'string' },
      host: { type: 'string' },
      'allowed-hosts': { type: 'string' },
      'allowed-origins': { type: 'string' },
      'shared-key': { type: 'boolean' },
      'read-only': { type: 'boolean' },
      toolsets: { type: 'string' },
      tools: { type: 'string' },
      'max-result-bytes': { type: 'string' },
      'log-level': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
}
