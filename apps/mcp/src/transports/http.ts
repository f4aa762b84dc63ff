import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@customer-api/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { type AuthInfo, createMcpHandler } from '@modelcontextprotocol/server';
import { Agent } from 'undici';
import type { Confirmation } from '../confirm.js';
import { createScopeLookup, mayWrite, type ScopeLookup } from '../key-scopes.js';
import { errorFields, type Logger, silentLogger } from '../log.js';
import type { OAuthConfig } from '../oauth/config.js';
import {
  bearerChallenge,
  metadataUrl,
  PROTECTED_RESOURCE_PATH,
  protectedResourceMetadata,
} from '../oauth/metadata.js';
import { createTokenVerifier, looksLikeJwt, TokenError } from '../oauth/verify.js';
import { buildServer } from '../server.js';
import { SelectionError, type ToolSelection } from '../tools/select.js';
import { type OriginPolicy, originPolicy, rejectReason } from './guard.js';
import { requestSelection } from './request-selection.js';

/** Largest JSON-RPC request body accepted (1 MiB, as the API itself). */
const MAX_BODY_BYTES = 1024 * 1024;
/** Path of the MCP endpoint. */
export const MCP_PATH = '/mcp';

/** Options of {@link createHttpHandler}. */
export interface HttpOptions {
  baseUrl: string;
  selection?: ToolSelection;
  maxResultBytes?: number;
  /** Interface the server binds; its name is an accepted Host. */
  host?: string;
  allowedHosts?: readonly string[];
  allowedOrigins?: readonly string[];
  /** Key for requests that carry none (single-user setups); unset: such requests get 401. */
  sharedApiKey?: string;
  confirmation?: Confirmation;
  logger?: Logger;
  /** OAuth access tokens besides API keys; `resource` is required here (the `/mcp` address). */
  oauth?: OAuthConfig;
  /** Where the scopes of a key are asked (default: the API at `baseUrl`, kept a minute). */
  scopeLookup?: ScopeLookup;
}

/** What one request is served with, carried to the MCP server factory in `AuthInfo.extra`. */
interface Grant {
  selection: ToolSelection | undefined;
  /** False when an access token lacks the write scope (the key's own scopes are asked later). */
  tokenWrites: boolean;
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function rpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>,
) {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}

/** The caller's Customer API key: `x-api-key`, else `Authorization: Bearer <key>`. */
export function apiKeyOf(request: IncomingMessage): string | undefined {
  const header = request.headers['x-api-key'];
  const key = Array.isArray(header) ? header[0] : header;
  if (key?.trim()) return key.trim();
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

async function readJson(
  request: IncomingMessage,
): Promise<{ ok: true; value: unknown } | { ok: false; status: number }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return { ok: false, status: 413 };
    chunks.push(chunk as Buffer);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    return { ok: false, status: 400 };
  }
}

/**
 * The request handler of the Streamable HTTP transport, stateless on every revision: each POST
 * gets a fresh MCP server bound to the API key in that request's headers, so any replica can
 * answer any request and one client's key never serves another. 2026-07-28 requests (per-request
 * `_meta`) and 2025 requests are told apart by the SDK's `createMcpHandler`, which also checks
 * the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers against the body. GET and
 * DELETE (server-sent event streams and sessions) answer 405. `X-MCP-Toolsets` and
 * `X-MCP-Readonly` select one request's tools; a key without the write scope is shown no write
 * tool. With `oauth`, the protected-resource metadata is served and JWT access tokens of its
 * issuer are accepted beside API keys.
 * @throws Error when `oauth` has no `resource` (the public `/mcp` address).
 */
export function createHttpHandler(options: HttpOptions): {
  handle: (req: IncomingMessage, res: ServerResponse) => void;
  close: () => Promise<void>;
} {
  const logger = options.logger ?? silentLogger;
  const agent = new Agent({ keepAliveTimeout: 10_000 });
  const policy: OriginPolicy = originPolicy(
    options.host ?? '127.0.0.1',
    options.allowedHosts ?? [],
    options.allowedOrigins ?? [],
  );
  const lookup = options.scopeLookup ?? createScopeLookup({ baseUrl: options.baseUrl });
  const oauth = options.oauth;
  const resource = oauth?.resource;
  if (oauth && !resource) throw new Error('OAuth needs the public /mcp address (MCP_PUBLIC_URL)');
  const verify = oauth && resource ? createTokenVerifier(oauth, resource) : undefined;
  const mcp = createMcpHandler(
    ({ authInfo }) => {
      const apiKey = authInfo?.token ?? '';
      const grant = authInfo?.extra as Grant | undefined;
      return buildServer({
        client: createClient({ apiKey, baseUrl: options.baseUrl, dispatcher: agent }),
        selection: grant?.selection ?? options.selection,
        maxResultBytes: options.maxResultBytes,
        confirmation: options.confirmation,
        logger,
        canWrite: async () => (grant?.tokenWrites ?? true) && mayWrite(lookup, apiKey),
      });
    },
    {
      legacy: 'stateless',
      maxRequestBodySize: MAX_BODY_BYTES,
      onerror: (error) => logger.debug('MCP request refused', errorFields(error)),
    },
  );
  const toNode = toNodeHandler(mcp, {
    maxRequestBodySize: MAX_BODY_BYTES,
    onerror: (error) => logger.error('HTTP request failed', errorFields(error)),
  });
  const challenge = (refusal?: TokenError) =>
    resource
      ? bearerChallenge(resource, refusal && { error: refusal.error, description: refusal.message })
      : 'Bearer realm="customer-api"';
  const metadataPaths = resource
    ? new Set([PROTECTED_RESOURCE_PATH, new URL(metadataUrl(resource)).pathname])
    : new Set<string>();
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'GET' && path === '/healthz') return sendJson(res, 200, { status: 'ok' });
    if (req.method === 'GET' && oauth && resource && metadataPaths.has(path)) {
      // Public metadata, read by browser-based clients of other origins too (RFC 9728 §3).
      return sendJson(res, 200, protectedResourceMetadata(resource, oauth.issuer), {
        'access-control-allow-origin': '*',
        'cache-control': 'public, max-age=3600',
      });
    }
    if (path !== MCP_PATH) return rpcError(res, 404, -32601, `Not found; the MCP endpoint is ${MCP_PATH}`);
    const refused = rejectReason(req, policy);
    if (refused) return rpcError(res, 403, -32000, refused);
    if (req.method !== 'POST') {
      return rpcError(res, 405, -32000, 'This stateless server takes POST only', { allow: 'POST' });
    }
    let apiKey = apiKeyOf(req) ?? options.sharedApiKey;
    let tokenWrites = true;
    if (!apiKey) {
      const how = verify
        ? 'Sign in (OAuth), or send your Customer API key as x-api-key or Authorization: Bearer <key>'
        : 'Send your Customer API key as x-api-key or Authorization: Bearer <key>';
      return rpcError(res, 401, -32001, how, { 'www-authenticate': challenge() });
    }
    if (verify && !req.headers['x-api-key'] && looksLikeJwt(apiKey)) {
      try {
        const grant = await verify(apiKey);
        apiKey = grant.apiKey;
        tokenWrites = grant.scopes.has('write');
      } catch (error) {
        if (!(error instanceof TokenError)) throw error;
        return rpcError(res, error.status, -32001, error.message, { 'www-authenticate': challenge(error) });
      }
    }
    let selection: ToolSelection | undefined;
    try {
      selection = requestSelection(req, options.selection);
    } catch (error) {
      if (!(error instanceof SelectionError)) throw error;
      return rpcError(res, 400, -32602, error.message);
    }
    const body = await readJson(req);
    if (!body.ok)
      return rpcError(
        res,
        body.status,
        body.status === 413 ? -32600 : -32700,
        body.status === 413 ? 'Request body over 1 MiB' : 'Parse error: the body is not JSON',
      );
    const extra: Grant = { selection, tokenWrites };
    const auth: AuthInfo = { token: apiKey, clientId: 'customer-api-key', scopes: [], extra: { ...extra } };
    await toNode(Object.assign(req, { auth }), res, body.value);
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    serve(req, res).catch((error: unknown) => {
      logger.error('HTTP request failed', errorFields(error));
      if (!res.headersSent) rpcError(res, 500, -32603, 'Internal error');
      else res.end();
    });
  };
  return {
    handle,
    close: async () => {
      await mcp.close();
      await agent.close();
    },
  };
}

/** A listening HTTP transport. */
export interface RunningHttpServer {
  /** The MCP endpoint, e.g. `http://127.0.0.1:3001/mcp`. */
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Starts the Streamable HTTP transport on `host:port` (port 0 picks a free one). */
export async function startHttpServer(
  options: HttpOptions & { port: number; host: string },
): Promise<RunningHttpServer> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${shownHost}:${port}${MCP_PATH}`;
  // Created after listening: with port 0 the OAuth resource defaults to the address just bound.
  const oauth = options.oauth && { ...options.oauth, resource: options.oauth.resource ?? url };
  const { handle, close } = createHttpHandler({ ...options, oauth });
  server.on('request', handle);
  return {
    url,
    server,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await close();
    },
  };
}
