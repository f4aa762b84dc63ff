import type { Server } from 'node:http';
import type { FastifyHttpOptions, FastifyReply } from 'fastify';
import type { Config } from '../config.js';
import { clientErrorHandler } from './client-errors.js';
import { connectionsCheckingInterval } from './connection-timeouts.js';
import { addCorsHeaders } from './cors.js';
import { errorBody, toDomainError } from './errors.js';
import { serializeRequest } from './log-redaction.js';
import { genRequestId } from './request-id.js';

/** Largest accepted request body (1 MiB); larger bodies are 400 VALIDATION_ERROR. */
export const BODY_LIMIT = 1024 * 1024;

/** The options `buildApp` gives Fastify: logging, connection bounds, request ids, proxies, body limit. */
export function fastifyOptions(config: Config): FastifyHttpOptions<Server> {
  const { headersTimeoutMs, requestTimeoutMs, idleTimeoutMs } = config.http;
  return {
    logger: {
      level: config.logLevel,
      redact: ['req.headers["x-api-key"]'],
      serializers: { req: serializeRequest },
    },
    // Every connection is bounded: headers, the whole request (a trickled body), and silence.
    // Node checks the first two every `connectionsCheckingInterval`, so that is kept short.
    http: {
      headersTimeout: Math.min(headersTimeoutMs, requestTimeoutMs),
      connectionsCheckingInterval: connectionsCheckingInterval(config.http),
    },
    requestTimeout: requestTimeoutMs,
    connectionTimeout: idleTimeoutMs,
    genReqId: genRequestId,
    requestIdHeader: false,
    // Behind a load balancer, the client address (per-address limits, logs) comes from X-Forwarded-For.
    trustProxy: trustProxyOption(config.trustProxy),
    bodyLimit: BODY_LIMIT,
    return503OnClosing: false,
    clientErrorHandler: clientErrorHandler(config.baseUrl),
    // Errors raised before routing (e.g. an undecodable URL) get the error object too.
    frameworkErrors: (error, request, reply) => {
      const body = errorBody(config.baseUrl, request.id, toDomainError(error));
      addCorsHeaders(config.corsAllowedOrigins, request, reply as FastifyReply);
      (reply as FastifyReply).header('x-request-id', request.id).status(body.status).send(body);
    },
  };
}

/** `TRUST_PROXY` as Fastify takes it: N hops become "trust the N nearest addresses". */
function trustProxyOption(
  value: Config['trustProxy'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof value === 'number' ? (_address, hop) => hop < value : value;
}
