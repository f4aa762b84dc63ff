import type { Socket } from 'node:net';
import { ValidationError } from '../lib/errors.js';
import { errorBody } from './errors.js';
import { genRequestId } from './request-id.js';
import { TurnQueue } from './turn-queue.js';

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
 * conflicting Content-Length, bad chunked encoding, a request not received within its timeout)
 * never reach Fastify's routing, and Fastify's default answer is its own body. This answers them
 * with the specification's error object too: 400 VALIDATION_ERROR about the headers (the
 * specification has no 408 or 431), then closes the connection as Node does. A lone error is
 * answered at once; a burst a slice per turn of the event loop ({@link TurnQueue}): the request
 * timeouts of a thousand trickling connections fall due in one check, and answering them at once
 * held every other request for about 75 ms. A socket waiting for its answer reads nothing more.
 */
export function clientErrorHandler(baseUrl: string, answers = new TurnQueue()) {
  const waiting = new WeakSet<Socket>();
  const answer = (err: ConnectionError, socket: Socket): void => {
    if (!socket.destroyed && socket.writable) {
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
  return (err: ConnectionError, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    // The parser reports again for every chunk that still arrives: one answer per connection.
    if (waiting.has(socket)) return;
    waiting.add(socket);
    socket.pause();
    answers.runNowOrLater(() => answer(err, socket));
  };
}
