import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { envelope, modernHeaders, post, toolCall } from '../test/raw.js';
import { type RunningHttpServer, startHttpServer } from '../transports/http.js';
import { DEFAULT_TENANT_CLAIM } from './config.js';

const api = inject('api');
type Key = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

/** A local authorization server: OpenID metadata and a JWKS with one ES256 key. */
async function startIssuer(): Promise<{ url: string; server: Server; key: Key }> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  let url = '';
  const server = createServer((req, res) => {
    const body =
      req.url === '/.well-known/openid-configuration'
        ? { issuer: url, jwks_uri: `${url}/jwks` }
        : req.url === '/jwks'
          ? { keys: [jwk] }
          : undefined;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, server, key: privateKey };
}

let issuer: Awaited<ReturnType<typeof startIssuer>>;
let http: RunningHttpServer;

beforeAll(async () => {
  issuer = await startIssuer();
  http = await startHttpServer({
    baseUrl: api.baseUrl,
    port: 0,
    host: '127.0.0.1',
    selection: { toolsets: ['all'] },
    oauth: {
      issuer: issuer.url,
      resource: undefined,
      jwksUrl: undefined,
      tenantClaim: DEFAULT_TENANT_CLAIM,
      keys: new Map([['acme', api.apiKey]]),
    },
  });
});
afterAll(async () => {
  await http?.close();
  await new Promise((resolve) => issuer?.server.close(resolve));
});

/** An access token; every claim can be overridden, `key` signs it. */
async function token(claims: JWTPayload = {}, options: { key?: Key; expiresIn?: string } = {}) {
  return new SignJWT({
    iss: issuer.url,
    aud: http.url,
    [DEFAULT_TENANT_CLAIM]: 'acme',
    scope: 'read write',
    ...claims,
  })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '5m')
    .sign(options.key ?? issuer.key);
}

const listTools = (authorization: Record<string, string>) =>
  post(
    http.url,
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope() } },
    { ...modernHeaders('tools/list'), ...authorization },
  );

async function refusal(bearer: string) {
  const res = await fetch(http.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: '{}',
  });
  return { status: res.status, challenge: res.headers.get('www-authenticate') ?? '', body: await res.text() };
}

describe('OAuth discovery (RFC 9728)', () => {
  it('answers 401 with the metadata address, and the metadata names the issuer', async () => {
    const res = await fetch(http.url, { method: 'POST', body: '{}' });
    expect(res.status).toBe(401);
    const metadataUrl = `${new URL(http.url).origin}/.well-known/oauth-protected-resource/mcp`;
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${metadataUrl}", scope="read write"`,
    );
    for (const address of [metadataUrl, `${new URL(http.url).origin}/.well-known/oauth-protected-resource`]) {
      const metadata = await fetch(address);
      expect(metadata.headers.get('access-control-allow-origin')).toBe('*');
      expect(await metadata.json()).toMatchObject({
        resource: http.url,
        authorization_servers: [issuer.url],
        scopes_supported: ['read', 'write'],
      });
    }
  });
});

describe('bearer tokens of the issuer', () => {
  it('serves a valid token with the API key of its tenant', async () => {
    const bearer = { authorization: `Bearer ${await token()}` };
    const listed = await listTools(bearer);
    expect(listed.status).toBe(200);
    const names = ((listed.message.result?.tools ?? []) as { name: string }[]).map((t) => t.name);
    expect(names).toContain('create_topic');
    const called = await post(http.url, toolCall(2, 'list_pages', { limit: 1 }), {
      ...modernHeaders('tools/call', 'list_pages'),
      ...bearer,
    });
    expect(called.message.result?.isError).toBeFalsy();
    expect(called.message.result?.structuredContent).toMatchObject({ items: expect.any(Array) });
  });

  it('hides and refuses write tools for a token with the read scope only', async () => {
    const bearer = { authorization: `Bearer ${await token({ scope: 'read' })}` };
    const names = (((await listTools(bearer)).message.result?.tools ?? []) as { name: string }[]).map(
      (t) => t.name,
    );
    expect(names).toContain('list_topics');
    expect(names.filter((n) => n.startsWith('create_') || n.startsWith('delete_'))).toEqual([]);
    const called = await post(http.url, toolCall(2, 'create_topic', { title: 'no' }), {
      ...modernHeaders('tools/call', 'create_topic'),
      ...bearer,
    });
    expect(called.message.error?.message).toMatch(/Unknown tool create_topic/);
  });

  it.each([
    ['of another audience', () => token({ aud: 'https://other.example/mcp' })],
    ['expired', () => token({}, { expiresIn: '-1m' })],
    ['of another issuer', () => token({ iss: 'https://evil.example' })],
  ])('refuses a token %s with 401 invalid_token', async (_case, make) => {
    const { status, challenge, body } = await refusal(await make());
    expect(status).toBe(401);
    expect(challenge).toMatch(/^Bearer resource_metadata="[^"]+", scope="read write", error="invalid_token"/);
    expect(body).not.toContain(api.apiKey);
  });

  it('refuses a forged signature: same key id, another key', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const { status, challenge } = await refusal(await token({}, { key: privateKey }));
    expect(status).toBe(401);
    expect(challenge).toContain('error="invalid_token"');
  });

  it('refuses an unsigned token and a tenant it has no key for', async () => {
    const [header, payload] = (await token()).split('.');
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${payload}.x`;
    expect(header).toBeTruthy();
    expect((await refusal(unsigned)).status).toBe(401);
    const other = await refusal(await token({ [DEFAULT_TENANT_CLAIM]: 'globex' }));
    expect(other.status).toBe(401);
    expect(other.challenge).toContain('names no tenant');
  });

  it('answers 403 insufficient_scope to a token with neither read nor write', async () => {
    const { status, challenge } = await refusal(await token({ scope: 'profile' }));
    expect(status).toBe(403);
    expect(challenge).toContain('error="insufficient_scope"');
  });

  it('keeps API keys working beside tokens', async () => {
    const ways: Record<string, string>[] = [
      { 'x-api-key': api.apiKey },
      { authorization: `Bearer ${api.apiKey}` },
    ];
    for (const authorization of ways) {
      const listed = await listTools(authorization);
      expect(listed.status).toBe(200);
      expect(listed.message.result?.tools).toBeInstanceOf(Array);
    }
  });
});
