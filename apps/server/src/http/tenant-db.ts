import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db, Handle } from '../db/port.js';
import type { ReadReason, ReplicaReads } from '../db/replica-reads.js';
import { requireAuth } from './auth.js';

/** A registered operation's handler as the app wraps it. */
export type Handler = (args: {
  request: FastifyRequest;
  reply?: FastifyReply;
  db?: Handle;
  /** The tenant whose handle `db` is. */
  tenantId?: string;
}) => Promise<{ status: number; body: unknown }>;

/** Which tenant a request acts for; throws when it names none it may act for. */
export type TenantOf = (request: FastifyRequest) => string;

/** The tenant of the request's API key (`registerAuth` has resolved it). */
const keyTenant: TenantOf = (request) => requireAuth(request).tenantId;

/** Where the handlers of a tenant's requests run their statements. */
export interface TenantHandles {
  /** The tenant's handle on the primary. */
  primary: (tenantId: string) => Db;
  /** With a standby (`DATABASE_REPLICA_URL`): where reads may go, and where their count goes. */
  replica?: {
    reads: ReplicaReads;
    counted: (target: 'replica' | 'primary', reason: ReadReason) => void;
  };
}

/**
 * `handler` given the handle of its request's tenant (the idempotency guard may give a `Tx`
 * instead): the API key's, or the one `tenantOf` finds (a signed download link names its own).
 * Without a standby, that is the primary's. With one, a `read` runs on a standby connection when
 * {@link ReplicaReads.place} finds it safe for the tenant (and again on the primary when a
 * statement fails there), and a `write` records where the tenant's writes committed once its
 * handler is done.
 */
export function withTenantDb(
  handler: Handler,
  handles: TenantHandles,
  kind: 'read' | 'write',
  tenantOf: TenantOf = keyTenant,
): Handler {
  const { primary, replica } = handles;
  if (!replica)
    return (args) => {
      const tenantId = tenantOf(args.request);
      return handler({ ...args, db: primary(tenantId), tenantId });
    };
  if (kind === 'write')
    return async (args) => {
      const tenantId = tenantOf(args.request);
      try {
        return await handler({ ...args, db: primary(tenantId), tenantId });
      } finally {
        await replica.reads.written(tenantId);
      }
    };
  return async (args) => {
    const tenantId = tenantOf(args.request);
    const placement = await replica.reads.place(tenantId);
    if (placement.target === 'primary') {
      replica.counted('primary', placement.reason);
      return handler({ ...args, db: placement.db, tenantId });
    }
    try {
      const result = await handler({ ...args, db: placement.db, tenantId });
      replica.counted('replica', 'replayed');
      return result;
    } catch (err) {
      if (placement.db.failure === undefined) {
        replica.counted('replica', 'replayed');
        throw err;
      }
    } finally {
      replica.reads.done(placement);
    }
    replica.counted('primary', 'unavailable');
    return handler({ ...args, db: primary(tenantId), tenantId });
  };
}
