import type { IncomingMessage } from 'node:http';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const WILDCARD_BINDS = new Set(['0.0.0.0', '::', '[::]']);

/** Which Host and Origin headers the HTTP transport accepts (DNS rebinding protection). */
export interface OriginPolicy {
  /** Host names (no port) accepted in the Host header; `*` accepts any. */
  readonly hosts: ReadonlySet<string>;
  /** Origins (`scheme://host[:port]`) accepted besides loopback ones; `*` accepts any. */
  readonly origins: ReadonlySet<string>;
}

/**
 * Loopback names, the bound host (unless it is a wildcard address), and the configured extras.
 * A browser page on another site that rebinds its DNS name to this machine still sends its own
 * name as Host, so it is refused.
 */
export function originPolicy(
  bindHost: string,
  allowedHosts: readonly string[],
  allowedOrigins: readonly string[],
): OriginPolicy {
  const hosts = new Set([...LOOPBACK, ...allowedHosts.map((h) => h.toLowerCase())]);
  if (!WILDCARD_BINDS.has(bindHost))
    hosts.add(bindHost.includes(':') && !bindHost.startsWith('[') ? `[${bindHost}]` : bindHost);
  return { hosts, origins: new Set(allowedOrigins.map((o) => o.replace(/\/+$/, '').toLowerCase())) };
}

function hostname(value: string): string | undefined {
  try {
    return new URL(`http://${value}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Why a request is refused, or undefined when its Host and Origin are acceptable. */
export function rejectReason(request: IncomingMessage, policy: OriginPolicy): string | undefined {
  const host = hostname(request.headers.host ?? '');
  if (!policy.hosts.has('*') && (host === undefined || !policy.hosts.has(host))) {
    return `Host ${request.headers.host ?? '(none)'} is not allowed; start the server with --allowed-hosts to accept it`;
  }
  const origin = request.headers.origin;
  if (origin === undefined || policy.origins.has('*')) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(origin);
  } catch {
    parsed = undefined;
  }
  if (parsed && LOOPBACK.has(parsed.hostname)) return undefined;
  if (parsed && policy.origins.has(parsed.origin.toLowerCase())) return undefined;
  return `Origin ${origin} is not allowed; start the server with --allowed-origins to accept it`;
}
