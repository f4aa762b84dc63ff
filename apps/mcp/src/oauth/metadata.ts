/** Path of the OAuth 2.0 Protected Resource Metadata (RFC 9728 §3). */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/**
 * Where the metadata of `resource` is (RFC 9728 §3.1): the well-known path inserted before the
 * resource's own path, `https://mcp.example.com/.well-known/oauth-protected-resource/mcp`.
 */
export function metadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return new URL(`${PROTECTED_RESOURCE_PATH}${path}`, url.origin).href;
}

/** The Protected Resource Metadata document of this MCP server. */
export function protectedResourceMetadata(resource: string, issuer: string): Record<string, unknown> {
  return {
    resource,
    authorization_servers: [issuer],
    scopes_supported: ['read', 'write'],
    bearer_methods_supported: ['header'],
    resource_name: 'Customer API MCP server',
  };
}

/** `WWW-Authenticate` of a refused request: where to find the metadata, and why when a token was bad. */
export function bearerChallenge(
  resource: string,
  refusal?: { error: 'invalid_token' | 'insufficient_scope'; description: string },
): string {
  const quote = (value: string) => `"${value.replace(/["\\]/g, "'")}"`;
  const parts = [`resource_metadata=${quote(metadataUrl(resource))}`, 'scope="read write"'];
  if (refusal) parts.push(`error=${quote(refusal.error)}`, `error_description=${quote(refusal.description)}`);
  return `Bearer ${parts.join(', ')}`;
}
