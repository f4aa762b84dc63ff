import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { NodePostgresDatabase } from '../db/adapters/node-postgres.js';
import type { Database } from '../db/database.js';
import type { Db } from '../db/port.js';
import { ReplicaReads } from '../db/replica-reads.js';
import type { TenantShare } from '../db/tenant-share.js';
import { primaryWalPosition } from '../db/wal-position.js';
import {
  MemoryWritePositions,
  positionTtlMs,
  RedisWritePositions,
  type WritePositions,
} from '../db/write-positions.js';
import type { Metrics } from '../metrics/registry.js';
import type { TenantHandles } from './tenant-db.js';

/**
 * The handles a tenant's requests run on: the primary, and the streaming standby for reads when
 * one is given beside a PostgreSQL primary.
 */
export function tenantHandles(
  app: FastifyInstance,
  config: Config,
  {
    database,
    replica,
    share,
    metrics,
  }: { database: Database; replica?: NodePostgresDatabase; share: TenantShare; metrics: Metrics },
): TenantHandles {
  // A tenant's requests run their statements on a handle holding the tenant's share of connections.
  const tenantDb = (tenantId: string): Db => database.forTenant(share, tenantId);
  const handles: TenantHandles = { primary: tenantDb };
  if (replica && database.kind === 'postgres') {
    const reads = replicaReads(app, config, { primary: database, replica, share });
    handles.replica = { reads, counted: (target, reason) => metrics.dbReads.inc({ target, reason }) };
  }
  return handles;
}

/** Read operations on a standby beside the primary; write positions in Redis when REDIS_URL is set. */
function replicaReads(
  app: FastifyInstance,
  config: Config,
  databases: { primary: Database & { kind: 'postgres' }; replica: NodePostgresDatabase; share: TenantShare },
): ReplicaReads {
  const ttlMs = positionTtlMs(config.database.replicaMaxLagMs);
  const positions: WritePositions = config.redisUrl
    ? new RedisWritePositions({
        url: config.redisUrl,
        ttlMs,
        primaryPosition: () => primaryWalPosition(databases.primary.db),
        onState: (state, err) =>
          state === 'lost'
            ? app.log.warn(
                { err },
                'Redis unreachable: reads run on the primary until write positions are shared again',
              )
            : app.log.info('Redis reachable again: reads may run on the replica again'),
      })
    : new MemoryWritePositions(ttlMs);
  app.addHook('onClose', async () => positions.close());
  return new ReplicaReads({ ...databases, positions, maxLagMs: config.database.replicaMaxLagMs });
}
