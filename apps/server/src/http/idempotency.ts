import { EventEmitter } from 'node:events';
import type { OperationMeta } from '@customer-api/contract';
import { type AppRoute, validateResponse } from '@ts-rest/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Handle } from '../db/port.js';
import type { Clock } from '../lib/clock.js';
import { ConflictError } from '../lib/errors.js';
import { KeyTaken } from '../lib/key-taken.js';
import { openResponse, type SealedResponse, sealResponse } from '../secrets/kept-responses.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { requireAuth } from './auth.js';
import { errorBody, toDomainError } from './errors.js';
import * as repo from './idempotency.repo.js';
import { REPLAYED_HEADER, readIdempotencyKey, requestFingerprint } from './idempotency-key.js';

/** What {@link IdempotencyGuard} needs. */
export interface IdempotencyDeps {
  clock: Clock;
  /** How long a first response is kept (`IDEMPOTENCY_TTL_S`). */
  ttlS: number;
  baseUrl: string;
  /** Whether handlers' responses are validated (as @ts-rest/fastify does with the same flag). */
  responseValidation: boolean;
  /** Seals a signing secret in a kept response, and opens it for a replay. */
  secrets: SecretBox;
}

/**
 * A handler's input, as far as the guard reads it: `db` is the tenant's handle, in which a keyed
 * request's transaction is opened; the handler is then given that transaction as its `db`.
 */
interface HandlerArgs {
  request: FastifyRequest;
  reply: FastifyReply;
  db: Handle;
}

type Handler = (args: HandlerArgs) => Promise<{ status: number; body: unknown }>;

/**
 * Statuses a retry may legitimately change: never kept, the key stays free. A 412 changed nothing,
 * and its retry comes with the tag of a fresh read (another `If-Match`, same key).
 */
function isKept(status: number): boolean {
  return status < 500 && ![400, 401, 403, 412, 429].includes(status);
}

/** The first execution's response: as sent, as kept, and as handed to ts-rest. */
interface FirstRun {
  status: number;
  bytes: string;
  kept: SealedResponse;
  result: { status: number; body: unknown };
}

/**
 * `Idempotency-Key` on every POST and PATCH under `/v0` (DESIGN, "Every write is safe to retry"),
 * one mechanism around every handler. A keyed request runs in one transaction holding the key's
 * advisory lock: the handler's writes and the kept response commit together or not at all, and
 * a retry elsewhere finds either the kept response or the lock (409 with `Retry-After: 1`). The
 * key table's primary key is the last guard: a response kept by another first rolls ours back.
 * Within a process a set of running keys answers the same 409 before any database work (PGlite
 * has one session, where advisory locks do not exclude). Events: `begin` (a key starts running
 * in this process) and `locked` (its transaction holds the lock), with the key.
 */
export class IdempotencyGuard {
  /** Emits `begin` and `locked` with the key; tests wait on them. */
  readonly events = new EventEmitter();
  readonly #running = new Set<string>();
  /** The exact text of the kept response, sent instead of a re-serialisation. */
  readonly #bytes = new WeakMap<FastifyRequest, { status: number; bytes: string }>();

  constructor(private readonly deps: IdempotencyDeps) {}

  /** Sends kept responses byte for byte (both the first time and on replays). */
  register(scope: FastifyInstance): void {
    scope.addHook('onSend', async (request, reply, payload) => {
      const kept = this.#bytes.get(request);
      return kept && kept.status === reply.statusCode ? kept.bytes : payload;
    });
  }

  /** Wraps the handlers of POST and PATCH operations; others are returned as they are. */
  wrapAll<T extends Record<string, unknown>>(implementation: T, routes: Record<string, AppRoute>): T {
    const wrapped: Record<string, unknown> = {};
    for (const [name, handler] of Object.entries(implementation)) {
      const route = routes[name];
      const writes = route && (route.method === 'POST' || route.method === 'PATCH');
      if (!writes) wrapped[name] = handler;
      else if ((route.metadata as OperationMeta).responseNotKept)
        wrapped[name] = checkingKey(handler as Handler);
      else wrapped[name] = this.#wrap(route, handler as Handler);
    }
    return wrapped as T;
  }

  #wrap(route: AppRoute, handler: Handler): Handler {
    return async (args) => {
      const key = readIdempotencyKey(args.request);
      if (key === undefined) return handler(args);
      const { tenantId } = requireAuth(args.request);
      const slot = `${tenantId}:${key}`;
      if (this.#running.has(slot)) throw stillRunning(args.reply);
      this.#running.add(slot);
      try {
        this.events.emit('begin', key);
        return await this.#execute(route, handler, args, tenantId, key);
      } finally {
        this.#running.delete(slot);
      }
    };
  }

  async #execute(route: AppRoute, handler: Handler, args: HandlerArgs, tenantId: string, key: string) {
    const { request, reply } = args;
    const fingerprint = requestFingerprint(request);
    for (let attempt = 1; ; attempt += 1) {
      const now = this.deps.clock();
      let outcome: Outcome;
      try {
        outcome = await args.db.transaction(async (tx): Promise<Outcome> => {
          const { locked, stored } = await repo.lockAndFind(tx, tenantId, key, now);
          if (!locked) return { kind: 'running' };
          this.events.emit('locked', key);
          if (stored) return { kind: 'stored', stored };
          const first = await this.#firstRun(route, handler, { ...args, db: tx });
          const row = { tenantId, key, fingerprint, statusCode: first.status, ...first.kept };
          if (!(await repo.keep(tx, { ...row, createdAt: now, expiresAt: this.#expiry(now) }))) {
            throw new KeyTaken();
          }
          return { kind: 'first', first };
        });
      } catch (err) {
        // Another transaction kept a response after our read's snapshot: ours is rolled back,
        // and the next round replays theirs.
        if (err instanceof KeyTaken && attempt < 3) continue;
        if (err instanceof HandlerFailed)
          return this.#failed(err.error, args.db, request, { tenantId, key, fingerprint });
        throw err;
      }
      return this.#answer(outcome, request, reply, fingerprint);
    }
  }

  #answer(outcome: Outcome, request: FastifyRequest, reply: FastifyReply, fingerprint: string) {
    if (outcome.kind === 'running') throw stillRunning(reply);
    if (outcome.kind === 'first') {
      this.#bytes.set(request, { status: outcome.first.status, bytes: outcome.first.bytes });
      return outcome.first.result;
    }
    if (outcome.stored.fingerprint !== fingerprint) {
      throw new ConflictError(
        'This Idempotency-Key was already used for another request (method, path or body); send a new key for a new request.',
      );
    }
    const { statusCode } = outcome.stored;
    const body = openResponse(this.deps.secrets, outcome.stored);
    this.#bytes.set(request, { status: statusCode, bytes: body });
    reply.header(REPLAYED_HEADER, 'true');
    return { status: statusCode, body: JSON.parse(body) as unknown };
  }

  /**
   * The handler failed and its transaction was rolled back. A refusal a retry cannot change
   * (404, 409, ...) is kept in a transaction of its own, unless another request kept the key
   * meanwhile; what a retry may change (400, 401, 403, 429, 5xx) leaves the key free.
   */
  async #failed(
    error: unknown,
    db: Handle,
    request: FastifyRequest,
    { tenantId, key, fingerprint }: { tenantId: string; key: string; fingerprint: string },
  ): Promise<never> {
    const body = errorBody(this.deps.baseUrl, request.id, toDomainError(error));
    if (isKept(body.status)) {
      const bytes = JSON.stringify(body);
      const now = this.deps.clock();
      const row = { tenantId, key, fingerprint, statusCode: body.status, body: bytes, sealedSecret: null };
      await db
        .transaction(async (tx) => {
          const { locked, stored } = await repo.lockAndFind(tx, tenantId, key, now);
          if (locked && !stored)
            await repo.keep(tx, { ...row, createdAt: now, expiresAt: this.#expiry(now) });
        })
        .catch((err: unknown) => request.log.warn({ err }, 'could not keep an idempotent refusal'));
      this.#bytes.set(request, { status: body.status, bytes });
    }
    throw error;
  }

  #expiry(now: Date): Date {
    return new Date(now.getTime() + this.deps.ttlS * 1000);
  }

  /**
   * Runs the handler with `args.db` the transaction (a service's own `transaction` is then a savepoint of it)
   * and renders its response as it will be sent. A handler's failure is wrapped in
   * {@link HandlerFailed}, which rolls the transaction back.
   */
  async #firstRun(route: AppRoute, handler: Handler, args: HandlerArgs): Promise<FirstRun> {
    let raw: { status: number; body: unknown };
    try {
      raw = await handler(args);
    } catch (error) {
      throw new HandlerFailed(error);
    }
    const result = this.deps.responseValidation
      ? (validateResponse({ appRoute: route, response: raw }) as { status: number; body: unknown })
      : raw;
    const bytes = JSON.stringify(result.body);
    return {
      status: result.status,
      bytes,
      kept: sealResponse(this.deps.secrets, result.body, bytes),
      result,
    };
  }
}

/** A handler whose `Idempotency-Key`, if any, is checked (400 when malformed) but not kept. */
function checkingKey(handler: Handler): Handler {
  return async (args) => {
    readIdempotencyKey(args.request);
    return handler(args);
  };
}

/** Rolls back a keyed transaction whose handler failed, carrying the failure. */
class HandlerFailed extends Error {
  constructor(readonly error: unknown) {
    super('handler failed');
  }
}

type Outcome =
  | { kind: 'running' }
  | { kind: 'stored'; stored: repo.StoredResponse }
  | { kind: 'first'; first: FirstRun };

function stillRunning(reply: FastifyReply): ConflictError {
  reply.header('retry-after', '1');
  return new ConflictError(
    'A request with this Idempotency-Key is still running; retry after the Retry-After delay to get its response.',
  );
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's `Idempotency-Key` guard (its events let tests wait for a running request). */
    idempotency: IdempotencyGuard;
  }
}
