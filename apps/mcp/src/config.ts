import { parseArgs } from 'node:util';
import { DEFAULT_BASE_URL } from '@customer-api/client';
import { LOG_LEVELS, type LogLevel } from './log.js';
import { type OAuthConfig, parseOAuthConfig } from './oauth/config.js';
import { deriveTools } from './tools/derive.js';
import { DEFAULT_MAX_RESULT_BYTES } from './tools/result.js';
import { SelectionError, selectTools, TOOLSET_NAMES, type ToolSelection } from './tools/select.js';

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
  /** OAuth bearer tokens over HTTP (`MCP_AUTH_ISSUER` …); undefined: API keys only. */
  oauth: OAuthConfig | undefined;
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

Serves Customer API operations as MCP tools: over stdio by default, or over Streamable HTTP
with --http. Every option can also be set by the environment variable beside it; an option
given on the command line wins.

Options:
  --http                     MCP_TRANSPORT=http   serve Streamable HTTP (stateless), not stdio
  --port <n>                 MCP_PORT             HTTP port (default ${DEFAULT_HTTP_PORT})
  --host <name>              MCP_HOST             HTTP interface to bind (default 127.0.0.1)
  --allowed-hosts <a,b>      MCP_ALLOWED_HOSTS    extra Host names accepted over HTTP
  --allowed-origins <a,b>    MCP_ALLOWED_ORIGINS  extra Origins accepted over HTTP
  --shared-key               MCP_SHARED_KEY=1     over HTTP, serve requests without a key of
                                                  their own with CUSTOMER_API_KEY (single user)
  --read-only                MCP_READ_ONLY=1      list only tools that change nothing
  --toolsets <a,b>           MCP_TOOLSETS         default (12 tools), all, or groups:
                                                  ${TOOLSET_NAMES.slice(2).join(', ')}
  --tools <a,b>              MCP_TOOLS            only these tools, e.g. list_pages,get_page
  --max-result-bytes <n>     MCP_MAX_RESULT_BYTES hard cap on one result's JSON (default ${DEFAULT_MAX_RESULT_BYTES})
  --log-level <level>        MCP_LOG_LEVEL        ${LOG_LEVELS.join(', ')} (default info; stderr)
  --help                     show this text

Environment:
  CUSTOMER_API_KEY           API key (stdio; over HTTP each client sends x-api-key or Authorization: Bearer)
  CUSTOMER_API_BASE_URL      API root (default ${DEFAULT_BASE_URL})
  MCP_CONFIRM                0: run deletes without asking the user (default 1)
  MCP_CONFIRM_SECRET         key (32+ characters) signing the confirmation state; the same on
                             every replica (default: random per process)
  MCP_AUTH_ISSUER            HTTP: accept OAuth access tokens (JWT) of this authorization server
  MCP_AUTH_KEYS              with it: JSON {"<tenant>":"<API key>"} (or a file holding it)
  MCP_AUTH_TENANT_CLAIM      the token claim naming the tenant (default customer_api_tenant)
  MCP_PUBLIC_URL             the /mcp address clients use: the tokens' audience
                             (default http://<host>:<port>/mcp)
  MCP_AUTH_JWKS_URL          the issuer's JWKS (default: from its metadata)`;

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
  const flag = (name: string, envName: string): boolean =>
    (values[name as keyof typeof values] as boolean | undefined) ?? envFlag(envName, env[envName]);
  const text = (name: string, envName: string): string | undefined =>
    (values[name as keyof typeof values] as string | undefined) ?? (env[envName] || undefined);
  const logLevel = (text('log-level', 'MCP_LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel))
    throw new ConfigError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  const tools = list(text('tools', 'MCP_TOOLS'));
  const selection: ToolSelection = {
    readOnly: flag('read-only', 'MCP_READ_ONLY'),
    // The default toolset unless named tools are asked for (they are picked from all tools).
    toolsets: list(text('toolsets', 'MCP_TOOLSETS')) ?? (tools ? undefined : ['default']),
    tools,
  };
  try {
    selectTools(deriveTools(), selection);
  } catch (error) {
    if (error instanceof SelectionError) throw new ConfigError(error.message);
    throw error;
  }
  const baseUrl = env.CUSTOMER_API_BASE_URL || DEFAULT_BASE_URL;
  if (!URL.canParse(baseUrl)) throw new ConfigError(`CUSTOMER_API_BASE_URL is not a URL: ${baseUrl}`);
  const transportName = values.http ? 'http' : env.MCP_TRANSPORT || 'stdio';
  if (transportName !== 'http' && transportName !== 'stdio')
    throw new ConfigError('MCP_TRANSPORT must be stdio or http');
  const transport = transportName;
  const sharedKey = flag('shared-key', 'MCP_SHARED_KEY');
  const apiKey = env.CUSTOMER_API_KEY || undefined;
  if ((transport === 'stdio' || sharedKey) && !apiKey) {
    throw new ConfigError(
      'Set CUSTOMER_API_KEY to an API key of the Customer API (see `customer-api keys create`).',
    );
  }
  const http = {
    port: integer('--port', text('port', 'MCP_PORT'), DEFAULT_HTTP_PORT, 0, 65_535),
    host: text('host', 'MCP_HOST') ?? '127.0.0.1',
    allowedHosts: list(text('allowed-hosts', 'MCP_ALLOWED_HOSTS')) ?? [],
    allowedOrigins: list(text('allowed-origins', 'MCP_ALLOWED_ORIGINS')) ?? [],
    sharedKey,
  };
  let oauth: OAuthConfig | undefined;
  try {
    oauth = parseOAuthConfig(env, http);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  return {
    transport,
    confirm: parseConfirm(env),
    baseUrl,
    apiKey,
    selection,
    maxResultBytes: integer(
      '--max-result-bytes',
      text('max-result-bytes', 'MCP_MAX_RESULT_BYTES'),
      DEFAULT_MAX_RESULT_BYTES,
      1_000,
      10_000_000,
    ),
    http,
    oauth,
    logLevel,
  };
}

/** A boolean environment variable: `1`/`true` or `0`/`false` (unset: false). */
function envFlag(name: string, value: string | undefined): boolean {
  if (value === undefined || value === '' || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw new ConfigError(`${name} must be 1 or 0`);
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
