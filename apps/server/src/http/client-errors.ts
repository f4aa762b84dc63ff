import type { Socket } from 'node:net';
import { ValidationError } from '../lib/errors.js';
import { errorBody } from './errors.js';
import { genRequestId } from './request-id.js';

/** The Node.js HTTP parser's error (a `clientError` event). */
type ConnectionError = Error & { code?: string };

function describe(err: ConnectionError): string {
  if (err.code === 'HPE_HEADER_OVERFLOW')
    return 'The request headers are larger than the server accepts (16 KiB).';
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'The request was not received completely in time.';
  return 'The HTTP request is malformed and cannot be parsed.';
}

/**
 * Requests Node's HTTP parser refuses (malformed request line or headers, headers over 16 KiB,
 * conflicting Content-Length, bad chunked encoding) never reach Fastify's routing, and Fastify's
 * default answer is its own body. This answers them with the specification's error object too:
 * 400 VALIDATION_ERROR about the headers (the specification has no 408 or 431), then closes the
 * connection as Node does.
 */
export function clientErrorHandler(baseUrl: string) {
  return (err: ConnectionError, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    if (socket.writable) {
      const requestId = genRequestId();
      const body = JSON.stringify(
        errorBody(baseUrl, requestId, ValidationError.of('headers', describe(err))),
      );
      socket.write(
        'HTTP/1.1 400 Bad Request\r\n' +
          'Content-Type: application/json; charset=utf-8\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          `x-request-id: ${requestId}\r\n` +
          'Connection: close\r\n\r\n' +
          body,
      );
    }
    socket.destroy();
  };
}
