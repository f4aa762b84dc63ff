import { readFileSync } from 'node:fs';

/** OAuth access tokens accepted over HTTP besides API keys (RFC 9728 discovery, JWT bearer tokens). */
export interface OAuthConfig {
  /** The authorization server (`MCP_AUTH_ISSUER`): the tokens' `iss`, named in the metadata. */
  readonly issuer: string;
  /** The `/mcp` address clients use (`MCP_PUBLIC_URL`), the tokens' audience; unset: the listening address. */
  readonly resource: string | undefined;
  /** The issuer's key set (`MCP_AUTH_JWKS_URL`); unset: `jwks_uri` of the issuer's metadata. */
  readonly jwksUrl: string | undefined;
  /** The claim naming the tenant whose API key serves the token (`MCP_AUTH_TENANT_CLAIM`). */
  readonly tenantClaim: string;
  /** Tenant → API key (`MCP_AUTH_KEYS`): the only keys a token can reach. */
  readonly keys: ReadonlyMap<string, string>;
}

/** Default of `MCP_AUTH_TENANT_CLAIM`. */
export const DEFAULT_TENANT_CLAIM = 'customer_api_tenant';

function parseUrl(name: string, value: string): string {
  if (!URL.canParse(value)) throw new Error(`${name} is not a URL: ${value}`);
  return new URL(value).href;
}

/** An `https:` URL, or `http:` on a loopback host (local issuers and tests). */
function secureUrl(name: string, value: string): string {
  if (!URL.canParse(value)) throw new Error(`${name} is not a URL: ${value}`);
  const url = new URL(value);
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    throw new Error(`${name} must be an https URL (http only on a loopback host): ${value}`);
  return value;
}

function parseKeys(value: string): ReadonlyMap<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value.trimStart().startsWith('{') ? value : readFileSync(value, 'utf8'));
  } catch (error) {
    throw new Error(
      `MCP_AUTH_KEYS must be a JSON object of tenant to API key, or a file holding one: ${(error as Error).message}`,
    );
  }
  const entries = typeof parsed === 'object' && parsed !== null ? Object.entries(parsed) : [];
  if (entries.length === 0 || entries.some(([, key]) => typeof key !== 'string' || key === ''))
    throw new Error('MCP_AUTH_KEYS must map each tenant to a non-empty API key');
  return new Map(entries as [string, string][]);
}

/**
 * Reads the OAuth settings; undefined when `MCP_AUTH_ISSUER` is unset (API keys only).
 * @throws Error naming the variable to fix.
 */
export function parseOAuthConfig(
  env: NodeJS.ProcessEnv,
  http: { host: string; port: number },
): OAuthConfig | undefined {
  const issuer = env.MCP_AUTH_ISSUER || undefined;
  if (!issuer) {
    if (env.MCP_AUTH_KEYS) throw new Error('MCP_AUTH_KEYS needs MCP_AUTH_ISSUER');
    return undefined;
  }
  if (!env.MCP_AUTH_KEYS) throw new Error('MCP_AUTH_ISSUER needs MCP_AUTH_KEYS (tenant to API key)');
  const host = http.host.includes(':') && !http.host.startsWith('[') ? `[${http.host}]` : http.host;
  const fallback = http.port === 0 ? undefined : `http://${host}:${http.port}/mcp`;
  const resource = env.MCP_PUBLIC_URL || fallback;
  return {
    issuer: secureUrl('MCP_AUTH_ISSUER', issuer),
    resource: resource === undefined ? undefined : parseUrl('MCP_PUBLIC_URL', resource),
    jwksUrl: env.MCP_AUTH_JWKS_URL ? secureUrl('MCP_AUTH_JWKS_URL', env.MCP_AUTH_JWKS_URL) : undefined,
    tenantClaim: env.MCP_AUTH_TENANT_CLAIM || DEFAULT_TENANT_CLAIM,
    keys: parseKeys(env.MCP_AUTH_KEYS),
  };
}
