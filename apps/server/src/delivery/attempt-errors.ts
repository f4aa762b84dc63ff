import { DnsLookupError, SsrfRefusedError } from './ssrf-guard.js';

/**
 * The only texts an attempt's `error` may hold, besides "Receiver answered HTTP n" and the
 * not-sent reasons: tenants read them in the delivery log, so they name the kind of failure and
 * never an address, a port or a resolver's or TLS library's own words (which describe the network
 * the server runs in). The full error goes to the server's log.
 */
export const ATTEMPT_ERRORS = {
  dnsFailed: 'DNS lookup failed for the host',
  addressRefused: 'The host resolves to a private, loopback or link-local address; refused',
  connectionRefused: 'Connection refused',
  unreachable: 'The host is unreachable',
  connectTimeout: 'Timed out connecting to the host',
  closed: 'The receiver closed the connection before answering',
  tlsCertificate: 'TLS certificate not accepted (expired, untrusted or for another host)',
  tlsHandshake: 'TLS handshake failed',
  badResponse: 'The receiver sent an invalid HTTP response',
  failed: 'The request failed before the receiver answered',
} as const;

/** The whole attempt, body included, took longer than the configured timeout. */
export const timedOut = (timeoutMs: number) => `Timed out after ${timeoutMs} ms`;

const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const CLOSED = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const UNREACHABLE = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN']);
const DNS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'ENODATA']);

/** Every error in a cause chain (undici and Node wrap the one that says what happened). */
function chain(err: unknown): unknown[] {
  const all: unknown[] = [];
  for (let e = err; e !== undefined && e !== null && all.length < 8; e = (e as { cause?: unknown }).cause) {
    all.push(e);
  }
  return all;
}

const codeOf = (err: unknown) => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
};

function classify(err: unknown): string | undefined {
  if (err instanceof SsrfRefusedError) return ATTEMPT_ERRORS.addressRefused;
  if (err instanceof DnsLookupError) return ATTEMPT_ERRORS.dnsFailed;
  const code = codeOf(err);
  if (code === 'ECONNREFUSED') return ATTEMPT_ERRORS.connectionRefused;
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') return ATTEMPT_ERRORS.connectTimeout;
  if (CLOSED.has(code)) return ATTEMPT_ERRORS.closed;
  if (UNREACHABLE.has(code)) return ATTEMPT_ERRORS.unreachable;
  if (DNS.has(code)) return ATTEMPT_ERRORS.dnsFailed;
  if (code.includes('CERT') || code.includes('SIGNATURE') || code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return ATTEMPT_ERRORS.tlsCertificate;
  }
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || code === 'EPROTO') {
    return ATTEMPT_ERRORS.tlsHandshake;
  }
  if (code.startsWith('HPE_') || code === 'UND_ERR_INFO' || code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') {
    return ATTEMPT_ERRORS.badResponse;
  }
  return undefined;
}

/**
 * The delivery-log text for an attempt that got no response: a fixed category (see
 * {@link ATTEMPT_ERRORS}), chosen from the error's type and code, never from its message.
 */
export function attemptErrorText(err: unknown, timeoutMs: number): string {
  const errors = chain(err);
  const timeout = errors.some(
    (e) => (e instanceof Error && e.name === 'TimeoutError') || TIMEOUTS.has(codeOf(e)),
  );
  if (timeout) return timedOut(timeoutMs);
  for (const e of errors) {
    const text = classify(e);
    if (text) return text;
  }
  return ATTEMPT_ERRORS.failed;
}
