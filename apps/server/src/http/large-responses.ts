import { OPERATION_NAMES, operationMeta } from '@customer-api/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { RateLimitedError } from '../lib/errors.js';
import { operationNamer } from '../metrics/operation-names.js';
import { INLINE_RESPONSE_CHARS, type JsonStream, type Lane, toJsonBody } from './json-stream.js';
import { TenantBandwidth } from './tenant-bandwidth.js';

/**
 * Large read responses (a 4 MiB message history, a list of 100 pages with long contexts) are
 * serialised and sent a chunk per turn of the event loop, so no request holds the loop for the
 * tens of milliseconds that stringifying and encoding megabytes take at once, and within the
 * tenant's share of bandwidth ({@link TenantBandwidth}): one tenant's large reads interleave with
 * other tenants' requests instead of queueing them. Past its line: 429 RATE_LIMITED. Small
 * responses, errors and writes (whose bodies the idempotency record keeps) are serialised as before.
 */
export function registerLargeResponses(app: FastifyInstance, bandwidth: TenantBandwidth): void {
  const operationOf = operationNamer();
  const keepsNoResponse = new Set<string>(
    OPERATION_NAMES.filter((name) => operationMeta(name).responseNotKept),
  );
  app.addHook('onRequest', async (request, reply) => {
    // Reads, and the writes that answer with a read and keep no response (`responseNotKept`).
    const read =
      request.method === 'GET' || keepsNoResponse.has(operationOf(request.method, request.routeOptions.url));
    if (!read) return;
    reads.set(request, { bandwidth, reply });
    reply.serializer((payload: unknown) => serializeRead(payload, request, reply, bandwidth));
  });
  // A serializer returns text: a large body leaves an empty one, replaced here by its stream.
  app.addHook('onSend', async (_request, reply, payload) => {
    const stream = streams.get(reply);
    if (!stream || payload !== '') return payload;
    reply.header('content-type', 'application/json; charset=utf-8');
    return stream;
  });
}

/**
 * The share the configuration gives: `responseBytesPerS` sustained, twice that at once, one large
 * response streaming and three in line per tenant (as its four database connections).
 */
export function bandwidthOf(config: Config): TenantBandwidth {
  const rate = config.tenantShare.responseBytesPerS;
  return new TenantBandwidth({ bytesPerSecond: rate, burstBytes: 2 * rate, streams: 1, waiting: 3 });
}

/** The share a read is served within, its reply, and the place in line it reserved before reading. */
const reads = new WeakMap<
  FastifyRequest,
  { bandwidth: TenantBandwidth; reply: FastifyReply; reserved?: Lane }
>();

/**
 * Takes the request's place in its tenant's line of large responses before a read of about
 * `bytes` (as the database measures them) and waits for its turn, so that a tenant's reads beyond
 * its line are refused (429 RATE_LIMITED) before the database reads a byte of them, and the reads
 * in line hold nothing in memory while they wait. Small reads and requests that are not GETs pass.
 */
async function reserveLargeResponse(request: FastifyRequest, bytes: number): Promise<void> {
  const read = reads.get(request);
  if (!read || read.reserved || bytes <= INLINE_RESPONSE_CHARS) return;
  const lane = read.bandwidth.enter(request.auth?.tenantId ?? '');
  if (!lane) throw lineFull(read.bandwidth);
  read.reserved = lane;
  // A place reserved and never streamed (a small body, an error) is given back with the response.
  read.reply.raw.once('close', () => lane.end());
  await lane.ready;
}

/**
 * The `admit` of a read that may be large, such as a message history: it refuses the read at once
 * (429 RATE_LIMITED) while its tenant's line of large responses is already full, before the
 * database is asked anything, so a tenant retrying in a loop past its line costs the server almost
 * nothing (and a publish that would answer with the history writes nothing). Otherwise the
 * returned function, given the size the database measured, takes the read's place in line with
 * {@link reserveLargeResponse}, which can still refuse it if the line filled meanwhile.
 */
export function admitLargeRead(request: FastifyRequest): (bytes: number) => Promise<void> {
  const read = reads.get(request);
  if (read?.bandwidth.isFull(request.auth?.tenantId ?? '')) throw lineFull(read.bandwidth);
  return (bytes) => reserveLargeResponse(request, bytes);
}

/** The streamed body of a reply, for its `onSend` and, once sent, its byte count. */
const streams = new WeakMap<FastifyReply, JsonStream>();

/** Bytes of a sent response body: its `Content-Length`, or what was streamed. */
export function responseBytes(reply: FastifyReply): number {
  const length = Number(reply.getHeader('content-length') ?? Number.NaN);
  return Number.isFinite(length) ? length : (streams.get(reply)?.counter.bytes ?? 0);
}

function serializeRead(
  payload: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  bandwidth: TenantBandwidth,
): string {
  // A reply's own serializer leaves its content type unset: every read answers JSON.
  reply.header('content-type', 'application/json; charset=utf-8');
  const body = toJsonBody(payload, () => {
    const lane = reads.get(request)?.reserved ?? bandwidth.enter(request.auth?.tenantId ?? '');
    if (!lane) throw lineFull(bandwidth);
    return lane;
  });
  if (typeof body === 'string') return body;
  streams.set(reply, body);
  return '';
}

function lineFull(bandwidth: TenantBandwidth): RateLimitedError {
  const { streams, waiting, bytesPerSecond } = bandwidth.limits;
  const retryAfter = bandwidth.retryAfterSeconds();
  return new RateLimitedError(
    { limit: streams + waiting, remaining: 0, resetTime: Date.now() + retryAfter * 1000, retryAfter },
    `This tenant already has ${streams + waiting} large responses in progress (its share: ${mib(bytesPerSecond)} MiB/s); retry in ${retryAfter} s or read fewer large results at once.`,
    'large_responses',
  );
}

const mib = (bytes: number) => Number((bytes / 1024 / 1024).toFixed(2));
