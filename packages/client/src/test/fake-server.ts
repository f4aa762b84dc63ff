import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ERROR_CATALOG, type ErrorCode } from '@customer-api/contract';

/** A request as the fake server received it. */
export interface RecordedRequest {
  method: string;
  /** Path and query string. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** `performance.now()` when the request arrived. */
  at: number;
}

/** Answers one request; `index` counts requests from 0. */
export type Handler = (req: RecordedRequest, res: ServerResponse, index: number) => void | Promise<void>;

/** A node:http server on 127.0.0.1:0 that records every request. */
export interface FakeServer {
  url: string;
  requests: RecordedRequest[];
  /** TCP connections accepted so far (keep-alive reuse keeps this at 1). */
  connections: number;
  close(): Promise<void>;
}

/** Starts a fault-injecting server on an ephemeral loopback port. */
export async function startServer(handler: Handler): Promise<FakeServer> {
  const sockets = new Set<Socket>();
  const state = { requests: [] as RecordedRequest[], connections: 0 };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const recorded = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      at: performance.now(),
    };
    state.requests.push(recorded);
    await handler(recorded, res, state.requests.length - 1);
  });
  server.on('connection', (socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: state.requests,
    get connections() {
      return state.connections;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Sends a JSON response with an `x-request-id`. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_${status}`, ...headers });
  res.end(JSON.stringify(body));
}

/** Sends the specification's error object for `code`. */
export function apiError(
  res: ServerResponse,
  code: ErrorCode,
  extra: { details?: unknown; headers?: Record<string, string>; requestId?: string } = {},
) {
  const { status, title } = ERROR_CATALOG[code];
  const requestId = extra.requestId ?? `req_err_${status}`;
  const body = {
    code,
    detail: `${title} detail`,
    requestId,
    status,
    title,
    type: `http://x/errors/${code.toLowerCase()}`,
  };
  json(res, status, extra.details === undefined ? body : { ...body, details: extra.details }, {
    'x-request-id': requestId,
    ...extra.headers,
  });
}

/** Answers 304 Not Modified: no body, the same `ETag`. */
export function notModified(res: ServerResponse, etag: string) {
  res.writeHead(304, { etag, 'x-request-id': 'req_304' });
  res.end();
}

/** Destroys the connection without answering (the client sees a reset / closed socket). */
export function reset(res: ServerResponse) {
  res.socket?.destroy();
}

/** Time between consecutive requests, in ms. */
export function gaps(requests: RecordedRequest[]): number[] {
  return requests.slice(1).map((req, i) => req.at - (requests[i]?.at ?? 0));
}
