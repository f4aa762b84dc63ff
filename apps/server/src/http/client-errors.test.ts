import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { ErrorSchema } from '@customer-api/contract';
import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL, useTestApp } from '../test/test-app.js';

const t = useTestApp();
let port: number;

beforeAll(async () => {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
});

/** Writes raw bytes and reads until the server closes the connection. */
function raw(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (chunk) => {
      data += chunk.toString('utf8');
    });
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
    socket.write(request);
  });
}

describe('requests the HTTP parser refuses', () => {
  it.each([
    ['headers over 16 KiB', `GET /v0/pages HTTP/1.1\r\nHost: x\r\nx-api-key: ${'a'.repeat(20_000)}\r\n\r\n`],
    ['a garbage request line', 'GARBAGE\r\n\r\n'],
    ['an unknown method', 'FOO /v0/pages HTTP/1.1\r\nHost: x\r\n\r\n'],
    [
      'two Content-Length headers',
      'POST /v0/pages HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    ],
    [
      'a bad chunk size',
      'POST /v0/pages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n',
    ],
    ['a NUL in a header', 'GET /v0/pages HTTP/1.1\r\nHost: x\r\nx-api-key: a\u0000b\r\n\r\n'],
  ])('answer %s with the 400 VALIDATION_ERROR object and close', async (_name, request) => {
    const response = await raw(request);
    const [head = '', body = ''] = response.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(head).toMatch(/\r\nConnection: close/i);
    const error = ErrorSchema.parse(JSON.parse(body));
    expect(error).toMatchObject({
      code: 'VALIDATION_ERROR',
      status: 400,
      type: `${TEST_BASE_URL}/errors/validation_error`,
    });
    expect(head).toContain(`x-request-id: ${error.requestId}`);
    expect(error.details).toEqual([expect.objectContaining({ field: 'headers' })]);
  });
});
