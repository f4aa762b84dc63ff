import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useWebhookTest } from '../test/webhooks.js';
import { ATTEMPT_ERRORS, attemptErrorText } from './attempt-errors.js';
import type { DispatcherLog, DispatcherOptions } from './dispatcher.js';

const w = useWebhookTest();
const { t, h } = w;

/** What must never reach a tenant: addresses, ports, the resolver's and OpenSSL's own words. */
const INTERNAL =
  /\d+\.\d+\.\d+\.\d+|::|:\d+|ENOTFOUND|EAI_|getaddrinfo|ECONNREFUSED|ECONNRESET|SSL|loopback\)|localhost/i;

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Delivers one event to `url` and returns the first attempt's logged error and the server log. */
async function firstAttempt(url: string, options: Partial<DispatcherOptions> = {}) {
  const logged: unknown[] = [];
  const log: DispatcherLog = {
    info: () => {},
    warn: (...args: unknown[]) => void logged.push(args),
    error: (...args: unknown[]) => void logged.push(args),
  } as DispatcherLog;
  const sub = await h.subscribe(url);
  await h.version();
  await h.dispatcher({ log, ...options }).runOnce();
  const attempts = await h.deliveries(sub.webhookSubscriptionId);
  const first = attempts.find((a) => a.attempt === 1);
  expect(first?.status).toBe('failed');
  return { error: first?.error ?? '', log: JSON.stringify(logged, errorFields) };
}

function errorFields(_key: string, value: unknown) {
  if (!(value instanceof Error)) return value;
  return { message: value.message, code: (value as { code?: unknown }).code, cause: value.cause };
}

/** Secure mode (as in production), with DNS answered by the test. */
const secure = (answers: (host: string) => Promise<string[]>): Partial<DispatcherOptions> => ({
  webhooks: { ...t.config.webhooks, allowInsecure: false },
  resolve: answers,
});

describe('the delivery log names the kind of failure, never internal details', () => {
  it('a host resolving to an internal address: refused, without naming the address', async () => {
    const port = await listen(createServer());
    const { error, log } = await firstAttempt(
      `http://vm.localhost:${port}/hooks`,
      secure(async () => ['127.0.0.1']),
    );
    expect(error).toBe(ATTEMPT_ERRORS.addressRefused);
    expect(error).not.toMatch(INTERNAL);
    // The operator still sees what happened.
    expect(log).toContain('vm.localhost resolves to 127.0.0.1 (loopback)');
  });

  it('a failed DNS lookup: no resolver message', async () => {
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND localhost.'), { code: 'ENOTFOUND' });
    const { error, log } = await firstAttempt(
      'http://nowhere.localhost:9/hooks',
      secure(async () => {
        throw notFound;
      }),
    );
    expect(error).toBe(ATTEMPT_ERRORS.dnsFailed);
    expect(error).not.toMatch(INTERNAL);
    expect(log).toContain('getaddrinfo ENOTFOUND localhost.');
  });

  it('a refused connection: no address or port', async () => {
    const closed = createServer();
    const port = await listen(closed);
    closed.close();
    const { error, log } = await firstAttempt(`http://127.0.0.1:${port}/hooks`);
    expect(error).toBe(ATTEMPT_ERRORS.connectionRefused);
    expect(error).not.toMatch(INTERNAL);
    expect(log).toContain(`127.0.0.1:${port}`);
  });

  it('a connection closed before any answer', async () => {
    const rude = createServer((socket) => socket.destroy());
    const port = await listen(rude);
    try {
      const { error } = await firstAttempt(`http://127.0.0.1:${port}/hooks`);
      expect(error).toBe(ATTEMPT_ERRORS.closed);
    } finally {
      rude.close();
    }
  });

  it('a failed TLS handshake: no OpenSSL message', async () => {
    // https to a plain-HTTP port: the handshake fails as it does against a misconfigured receiver.
    const { error, log } = await firstAttempt(w.receiver.url.replace('http:', 'https:'));
    expect(error).toBe(ATTEMPT_ERRORS.tlsHandshake);
    expect(error).not.toMatch(INTERNAL);
    expect(log).toMatch(/SSL|TLS|EPROTO/);
  });

  it('maps errors by their type and code, whatever their message says', () => {
    const err = (code: string, message: string) => Object.assign(new Error(message), { code });
    const altname = err(
      'ERR_TLS_CERT_ALTNAME_INVALID',
      "Hostname/IP does not match certificate's altnames: IP: 10.0.0.5",
    );
    const cases: Array<[unknown, string]> = [
      [altname, ATTEMPT_ERRORS.tlsCertificate],
      [err('CERT_HAS_EXPIRED', 'certificate has expired'), ATTEMPT_ERRORS.tlsCertificate],
      [err('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'), ATTEMPT_ERRORS.tlsCertificate],
      [err('EHOSTUNREACH', 'connect EHOSTUNREACH 10.1.2.3:443'), ATTEMPT_ERRORS.unreachable],
      [
        err('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error (attempted address: 10.0.0.1:443)'),
        ATTEMPT_ERRORS.connectTimeout,
      ],
      [err('UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error'), 'Timed out after 10000 ms'],
      [err('HPE_INVALID_CONSTANT', 'Expected HTTP/'), ATTEMPT_ERRORS.badResponse],
      [
        new Error('fetch failed', { cause: err('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.9:80') }),
        ATTEMPT_ERRORS.connectionRefused,
      ],
      [new Error('something new at 192.168.0.1'), ATTEMPT_ERRORS.failed],
      ['a string', ATTEMPT_ERRORS.failed],
    ];
    for (const [error, text] of cases) {
      expect(attemptErrorText(error, 10_000)).toBe(text);
      expect(text).not.toMatch(INTERNAL);
    }
  });
});
