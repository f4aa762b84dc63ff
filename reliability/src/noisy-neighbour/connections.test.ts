// One tenant cannot slow down another, and no input gets a 500: each finding of the attack on the
// first release candidate (two tenants, far under the rate limit) replayed against the real app.
// Finding 4: connections without a request, or with a trickled one.
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { report } from '../lib/profile.js';
import { baseEnv, createKey, startProcess } from '../lib/server-process.js';

describe('4. connections without a request, or with a trickled one', () => {
  let dataDir: string;
  let proc: Awaited<ReturnType<typeof startProcess>>;
  let apiKey: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'reliability-timeouts-'));
    const env = baseEnv({
      DATA_DIR: dataDir,
      HTTP_HEADERS_TIMEOUT_MS: '500',
      HTTP_REQUEST_TIMEOUT_MS: '1000',
      HTTP_IDLE_TIMEOUT_MS: '5000',
    });
    apiKey = await createKey(env, 'timeouts');
    proc = await startProcess(env);
  });
  afterAll(async () => {
    await proc?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Opens `count` connections, lets `write` use each, resolves when the server closed them all. */
  function closedByServer(count: number, write: (socket: import('node:net').Socket) => void) {
    const { port } = new URL(proc.url);
    return Promise.all(
      Array.from(
        { length: count },
        () =>
          new Promise<string>((resolve, reject) => {
            const socket = connect(Number(port), '127.0.0.1', () => write(socket));
            let got = '';
            socket.on('data', (chunk) => {
              got += chunk.toString('utf8');
            });
            // A client still writing when the server closes gets a reset: after an answer, that
            // is the close this waits for (the answer is what the tests check).
            socket.on('error', (error) => (got ? resolve(got) : reject(error)));
            socket.on('close', () => resolve(got));
          }),
      ),
    );
  }

  it('closes idle keyless connections at the headers timeout instead of holding them', async () => {
    const answers = await closedByServer(200, () => {});
    expect(answers.every((got) => got === '' || got.includes('VALIDATION_ERROR'))).toBe(true);
    report('noisy-neighbour-idle-connections', { connections: 200, allClosed: 'yes' });
  });

  it('answers a trickled body with the error object and closes the connection, with or without a key', async () => {
    const trickled = (key: string) =>
      closedByServer(1, (socket) => {
        socket.write(
          `POST /v0/account_logs HTTP/1.1\r\nHost: x\r\n${key}content-type: application/json\r\ncontent-length: 100\r\n\r\n{`,
        );
        const trickle = setInterval(() => socket.writable && socket.write(' '), 100);
        socket.on('close', () => clearInterval(trickle));
      });
    const [withKey] = await trickled(`x-api-key: ${apiKey}\r\n`);
    expect(withKey).toMatch(/^HTTP\/1\.1 400/);
    expect(withKey).toContain('not received completely in time');
    // Without a key the answer comes before the body is read.
    const [keyless] = await trickled('');
    expect(keyless).toMatch(/^HTTP\/1\.1 401/);
    expect(keyless?.toLowerCase()).toContain('connection: close');
  });

  it('closes the connection after a 401', async () => {
    const res = await fetch(`${proc.url}/v0/pages`, { headers: { 'x-api-key': 'cak_nope' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('connection')).toBe('close');
  });
});
