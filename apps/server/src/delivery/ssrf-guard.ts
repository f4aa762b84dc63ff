import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { buildConnector } from 'undici';

/** One refused address range: the first `bits` bits of `network`, and why it is refused. */
interface Range {
  bytes: Uint8Array;
  bits: number;
  reason: string;
}

/** Parses an IPv4 or IPv6 literal (zone ids and brackets allowed) into 4 or 16 bytes. */
export function parseIp(address: string): Uint8Array | undefined {
  const plain = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(plain);
  if (family === 4) return Uint8Array.from(plain.split('.').map(Number));
  if (family !== 6) return undefined;
  let text = plain.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted.split('.').map(Number);
    text = `${text.slice(0, -dotted.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...new Array(8 - left.length - right.length).fill('0'), ...right];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = Number.parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  return bytes;
}

function range(cidr: string, reason: string): Range {
  const [network = '', bits = '0'] = cidr.split('/');
  const bytes = parseIp(network);
  if (!bytes) throw new Error(`bad range ${cidr}`);
  return { bytes, bits: Number(bits), reason };
}

const V4_RANGES: Range[] = [
  range('0.0.0.0/8', 'unspecified'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'carrier-grade NAT'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local (cloud metadata)'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'IETF protocol assignments (cloud metadata)'),
  range('192.0.2.0/24', 'documentation'),
  range('192.88.99.0/24', '6to4 relay'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'benchmarking'),
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved'),
  // Azure's platform endpoint (wireserver) lives in public space but serves instance secrets.
  range('168.63.129.16/32', 'cloud metadata'),
];

const V6_RANGES: Range[] = [
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('::ffff:0:0/96', 'IPv4-mapped'),
  range('::/96', 'IPv4-compatible'),
  range('64:ff9b::/96', 'NAT64'),
  range('64:ff9b:1::/48', 'NAT64'),
  range('100::/64', 'discard'),
  range('2001::/32', 'Teredo'),
  range('2001:db8::/32', 'documentation'),
  range('2001:10::/28', 'ORCHID'),
  range('2001:20::/28', 'ORCHID'),
  range('2002::/16', '6to4'),
  range('fc00::/7', 'unique local (private, cloud metadata)'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'site-local'),
  range('ff00::/8', 'multicast'),
];

function matches(bytes: Uint8Array, r: Range): boolean {
  if (bytes.length !== r.bytes.length) return false;
  for (let bit = 0; bit < r.bits; bit += 8) {
    const remaining = Math.min(8, r.bits - bit);
    const mask = (0xff << (8 - remaining)) & 0xff;
    if (((bytes[bit / 8] ?? 0) & mask) !== ((r.bytes[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}

/**
 * Why a webhook may not connect to `address`, or undefined when it is a public unicast address.
 * IPv6 forms that embed or tunnel to IPv4 (mapped, compatible, NAT64, 6to4, Teredo) are refused
 * outright: they are how a "public" IPv6 answer reaches a private IPv4 host.
 */
export function refusalReason(address: string): string | undefined {
  const bytes = parseIp(address);
  if (!bytes) return 'not an IP address';
  const ranges = bytes.length === 4 ? V4_RANGES : V6_RANGES;
  return ranges.find((r) => matches(bytes, r))?.reason;
}

/**
 * Refused by the SSRF guard. The message names the address and the reason: for the server's log
 * only, since what a name resolves to inside the network is exactly what a tenant must not learn.
 */
export class SsrfRefusedError extends Error {
  override readonly name = 'SsrfRefusedError';
  readonly code = 'ERR_WEBHOOK_SSRF';
}

/** The host name did not resolve (no such name, no address, resolver failure); `cause` has the resolver's error. */
export class DnsLookupError extends Error {
  override readonly name = 'DnsLookupError';
  readonly code = 'ERR_WEBHOOK_DNS';
}

/** Resolves a host name to its addresses (injectable for tests). */
export type Resolver = (hostname: string) => Promise<string[]>;

/** The system resolver (getaddrinfo, as the HTTP stack would use). */
export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Resolves `hostname` once and returns the address to connect to. Every answer must be public:
 * one private answer refuses the host, so a name cannot mix public and internal addresses.
 */
export async function resolvePublicAddress(
  hostname: string,
  resolve: Resolver = systemResolver,
  refuse: (address: string) => string | undefined = refusalReason,
): Promise<string> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : await lookup(host, resolve);
  if (addresses.length === 0) throw new DnsLookupError(`${hostname} has no address`);
  for (const address of addresses) {
    const reason = refuse(address);
    if (reason) throw new SsrfRefusedError(`${hostname} resolves to ${address} (${reason}): refused`);
  }
  return addresses[0] as string;
}

async function lookup(host: string, resolve: Resolver): Promise<string[]> {
  try {
    return await resolve(host);
  } catch (err) {
    throw new DnsLookupError(`DNS lookup of ${host} failed`, { cause: err });
  }
}

/** Options of {@link guardedConnector}. */
export interface GuardOptions {
  /** Skip the address check (`WEBHOOKS_ALLOW_INSECURE=1`, development and tests only). */
  allowInsecure: boolean;
  resolve?: Resolver;
  /** Replaces {@link refusalReason} (tests use it to admit a loopback receiver). */
  refuse?: (address: string) => string | undefined;
  timeoutMs?: number;
}

/**
 * An undici connector that checks the address at connect time and pins it: the host is
 * resolved once, checked, and the socket opened to that very address (TLS still verifies and
 * sends SNI for the host name), so DNS rebinding between check and connect is impossible.
 */
export function guardedConnector(options: GuardOptions): buildConnector.connector {
  const connect = buildConnector({ timeout: options.timeoutMs ?? 10_000 });
  const refuse = options.allowInsecure ? () => undefined : (options.refuse ?? refusalReason);
  return (opts, callback) => {
    resolvePublicAddress(opts.hostname, options.resolve, refuse).then(
      (address) => {
        const servername = isIP(opts.hostname.replace(/^\[|\]$/g, '')) ? undefined : opts.hostname;
        connect({ ...opts, hostname: address, servername: opts.servername ?? servername }, callback);
      },
      (err: Error) => callback(err, null),
    );
  };
}
