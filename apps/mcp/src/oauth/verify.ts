import { createRemoteJWKSet, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import type { OAuthConfig } from './config.js';

/** What a verified access token grants: the API key it is served with and the scopes it allows. */
export interface TokenGrant {
  readonly tenant: string;
  readonly apiKey: string;
  /** `read` and/or `write`, from the token's `scope` (or `scp`) claim. */
  readonly scopes: ReadonlySet<string>;
}

/** A token refused; `error` is the RFC 6750 code for `WWW-Authenticate`. */
export class TokenError extends Error {
  override name = 'TokenError';
  constructor(
    message: string,
    readonly status: 401 | 403,
    readonly error: 'invalid_token' | 'insufficient_scope',
  ) {
    super(message);
  }
}

/** Signature algorithms accepted: public-key ones only, so a key set can never verify an HMAC. */
const ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** Three base64url parts: a JWT, not an API key. */
export function looksLikeJwt(token: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token);
}

/** Where RFC 8414 and OpenID Connect put the metadata of an issuer, in the order tried. */
function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, url).href,
    new URL(`${path}/.well-known/openid-configuration`, url).href,
  ];
}

async function discoverJwks(issuer: string): Promise<URL> {
  for (const address of metadataUrls(issuer)) {
    const response = await fetch(address, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
    if (!response?.ok) continue;
    const metadata = (await response.json().catch(() => ({}))) as { issuer?: unknown; jwks_uri?: unknown };
    // RFC 8414 §3.3: metadata naming another issuer must not be used.
    if (metadata.issuer === issuer && typeof metadata.jwks_uri === 'string')
      return new URL(metadata.jwks_uri);
  }
  throw new Error(`No metadata with a jwks_uri found for ${issuer}`);
}

function scopesOf(payload: JWTPayload): Set<string> {
  const raw = payload.scope ?? payload.scp;
  const all = typeof raw === 'string' ? raw.split(' ') : Array.isArray(raw) ? raw : [];
  return new Set(all.filter((scope): scope is string => scope === 'read' || scope === 'write'));
}

/**
 * A verifier of access tokens: signed by a key of the issuer's JWKS (fetched once, refreshed by
 * `jose` on an unknown key id), `iss` the issuer, `aud` this server's `/mcp` address, not expired,
 * naming a tenant of `MCP_AUTH_KEYS` in its tenant claim and `read` or `write` in its scopes.
 */
export function createTokenVerifier(
  config: OAuthConfig,
  resource: string,
): (token: string) => Promise<TokenGrant> {
  let keys: Promise<JWTVerifyGetKey> | undefined;
  const keySet = () => {
    keys ??= (config.jwksUrl ? Promise.resolve(new URL(config.jwksUrl)) : discoverJwks(config.issuer)).then(
      (url) => createRemoteJWKSet(url),
    );
    // A failed discovery is tried again on the next token.
    keys.catch(() => {
      keys = undefined;
    });
    return keys;
  };
  return async (token) => {
    const getKey = await keySet().catch((error: unknown) => {
      throw new TokenError(
        `The authorization server's keys are unavailable: ${(error as Error).message}`,
        401,
        'invalid_token',
      );
    });
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, getKey, {
        issuer: config.issuer,
        audience: resource,
        algorithms: ALGORITHMS,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      throw new TokenError(
        `The access token is not valid: ${(error as Error).message}`,
        401,
        'invalid_token',
      );
    }
    const tenant = payload[config.tenantClaim];
    const apiKey = typeof tenant === 'string' ? config.keys.get(tenant) : undefined;
    if (typeof tenant !== 'string' || apiKey === undefined)
      throw new TokenError(
        `The access token names no tenant this server serves (claim ${config.tenantClaim})`,
        401,
        'invalid_token',
      );
    const scopes = scopesOf(payload);
    if (scopes.size === 0)
      throw new TokenError(
        'The access token grants neither the read nor the write scope',
        403,
        'insufficient_scope',
      );
    return { tenant, apiKey, scopes };
  };
}
