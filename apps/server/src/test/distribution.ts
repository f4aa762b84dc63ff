import { DISTRIBUTION_COLUMN, type Placement, placementOf } from '../db/distribute.js';

export { DISTRIBUTION_COLUMN, type Placement } from '../db/distribute.js';

/**
 * What sharding by tenant (Citus, distribution column `tenant_id`) needs of the schema and of the
 * statements, checked against the schema PostgreSQL reports and the statements' text. Pure: the
 * caller reads the catalog and the statement registry. See `docs/deploy.md`, "Scaling out with
 * Citus"; `router-queries.test.ts` asks a real cluster.
 */

/**
 * Where each table of the schema goes on a Citus cluster, by the rules `migrate` applies
 * (`placementOf`, db/distribute.ts); a table those rules cannot place is left out, which the
 * schema check reports.
 */
export function placementsOf(tables: readonly TableFacts[]): Record<string, Placement> {
  const placements: Record<string, Placement> = {};
  for (const table of tables) {
    const placement = placementOf(
      table.name,
      table.columns.some((c) => c.name === DISTRIBUTION_COLUMN),
    );
    if (placement) placements[table.name] = placement;
  }
  return placements;
}

/**
 * Statements that span tenants on purpose, and why: on Citus they stay multi-shard queries (or are
 * redesigned), where every other multi-shard statement only lacks the tenant filter its caller
 * could give.
 */
export const CROSS_TENANT: Readonly<Record<string, string>> = {
  accounts_analyze: 'maintenance: ANALYZE after a bulk seed (Citus analyzes every shard)',
  outbox_gauges_state: 'metrics over every tenant (a multi-shard read)',
  secrets_kept_to_seal: 'maintenance: seals kept responses of every tenant (start, secrets rotate)',
  secrets_subscriptions_to_seal: 'maintenance: seals secrets of every tenant (start, secrets rotate)',
  webhook_complete_and_lease: 'dispatcher: fair lease across tenants',
  webhook_complete_successes: 'dispatcher: a batch spans tenants',
  webhook_due_tenants: 'dispatcher on Citus: which tenants have attempts due (a multi-shard read)',
  webhook_fan_out: 'outbox fan-out across tenants',
  webhook_fan_out_hand_over: 'outbox fan-out across tenants, leased to an idle dispatcher',
  webhook_fan_out_pending: 'outbox fan-out across tenants, each event read by its key',
  webhook_hand_over_lease: 'outbox events across tenants, leased to an idle dispatcher',
  webhook_hand_over_write: 'the attempts of events across tenants, written as they are sent',
  webhook_fan_out_pending_joined: 'outbox fan-out across tenants (a multi-shard read)',
  webhook_lease_due: 'dispatcher: fair lease across tenants',
  webhook_lease_due_targets: 'dispatcher: fair lease across tenants',
  webhook_queue_attempts: 'dispatcher: a batch spans tenants (rows routed to their shards)',
  webhook_release_leases: 'dispatcher: a batch spans tenants (a multi-shard update)',
};

/**
 * The cross-tenant statements of one PostgreSQL server that Citus refuses, on purpose: the delivery
 * engine's fair claim, hand-over and batches lock rows of every tenant in one statement (`FOR
 * UPDATE SKIP LOCKED`, recursive CTEs, `ctid` lookups), which Citus runs on one shard only. On a
 * cluster the dispatcher never runs them: it runs, tenant by tenant, the statement each names
 * (decision 0233). `router-queries.test.ts` checks the list against a real cluster, and that each
 * named statement is a router query.
 */
export const ONE_SERVER_ONLY: Readonly<Record<string, { instead: string[]; why: string }>> = {
  webhook_complete_and_lease: {
    instead: ['webhook_complete_tenant_successes', 'webhook_lease_tenant_targets'],
    why: 'a claim rides with a batch spanning tenants',
  },
  webhook_complete_successes: {
    instead: ['webhook_complete_tenant_successes'],
    why: 'looks attempts of every tenant up by ctid',
  },
  webhook_fan_out: {
    instead: ['webhook_fan_out_dequeue_tenant', 'webhook_queue_attempts'],
    why: 'FOR UPDATE SKIP LOCKED on the queue of every tenant',
  },
  webhook_fan_out_hand_over: {
    instead: ['webhook_fan_out_dequeue_tenant', 'webhook_queue_attempts', 'webhook_lease_tenant_targets'],
    why: 'FOR UPDATE SKIP LOCKED on the queue of every tenant',
  },
  webhook_hand_over_lease: {
    instead: ['webhook_fan_out_dequeue_tenant', 'webhook_queue_attempts', 'webhook_lease_tenant_targets'],
    why: 'FOR UPDATE SKIP LOCKED on the queue of every tenant',
  },
  webhook_hand_over_write: {
    instead: ['webhook_fan_out_dequeue_tenant', 'webhook_queue_attempts', 'webhook_lease_tenant_targets'],
    why: 'locks queued events of every tenant and inserts from another CTE',
  },
  webhook_fan_out_pending: {
    instead: ['webhook_fan_out_dequeue_tenant', 'webhook_queue_attempts'],
    why: 'a lateral join against a subquery Citus plans apart (the cluster reads with webhook_fan_out_pending_joined)',
  },
  webhook_lease_due: {
    instead: ['webhook_lease_tenant_targets'],
    why: 'recursive CTE over every tenant, FOR UPDATE SKIP LOCKED',
  },
  webhook_lease_due_targets: {
    instead: ['webhook_lease_tenant_targets'],
    why: 'recursive CTE over every tenant, FOR UPDATE SKIP LOCKED',
  },
};

/** One line for the gaps report: why a statement is of one server only, and what a cluster runs instead. */
export function oneServerOnlyNote(name: string): string {
  const entry = ONE_SERVER_ONLY[name];
  return entry ? `${entry.why}; a cluster runs ${entry.instead.join(' + ')} per tenant instead` : '';
}

/** A primary key, unique constraint or unique index: its name and its key columns in order. */
export interface Key {
  name: string;
  /** Column names; an expression key is its text (`lower(email)`). */
  columns: string[];
}

/** A foreign key: its columns and the referenced table's, pairwise. */
export interface ForeignKey extends Key {
  references: string;
  referencedColumns: string[];
}

/** A table as the catalog reports it. */
export interface TableFacts {
  /** `table` in `public`, `schema.table` elsewhere. */
  name: string;
  columns: { name: string; notNull: boolean }[];
  primaryKey: Key | undefined;
  /** Unique constraints and unique indexes (the primary key excluded). */
  uniques: Key[];
  foreignKeys: ForeignKey[];
}

/** The schema's gaps, and which tables have none. */
export interface SchemaReport {
  /** One line per gap, `table: what is missing`, sorted. */
  gaps: string[];
  ready: string[];
  notReady: string[];
}

const list = (columns: readonly string[]) => `(${columns.join(', ')})`;

function keyGaps(table: TableFacts): string[] {
  const gaps: string[] = [];
  const column = table.columns.find((c) => c.name === DISTRIBUTION_COLUMN);
  if (!column) gaps.push(`has no ${DISTRIBUTION_COLUMN} column`);
  else if (!column.notNull) gaps.push(`${DISTRIBUTION_COLUMN} is nullable`);
  if (!table.primaryKey) gaps.push('has no primary key');
  else if (table.primaryKey.columns[0] !== DISTRIBUTION_COLUMN) {
    const { name, columns } = table.primaryKey;
    gaps.push(`primary key ${name} ${list(columns)} does not lead with ${DISTRIBUTION_COLUMN}`);
  }
  for (const unique of table.uniques) {
    if (!unique.columns.includes(DISTRIBUTION_COLUMN)) {
      gaps.push(`unique ${unique.name} ${list(unique.columns)} does not include ${DISTRIBUTION_COLUMN}`);
    }
  }
  return gaps;
}

/** Whether the foreign key pairs `tenant_id` with the referenced table's `tenant_id`. */
function pairsTenant(fk: ForeignKey): boolean {
  const i = fk.columns.indexOf(DISTRIBUTION_COLUMN);
  return i >= 0 && fk.referencedColumns[i] === DISTRIBUTION_COLUMN;
}

function foreignKeyGaps(
  table: TableFacts,
  placement: Placement,
  plan: Readonly<Record<string, Placement>>,
): string[] {
  const gaps: string[] = [];
  for (const fk of table.foreignKeys) {
    const target = plan[fk.references];
    const shape = `foreign key ${fk.name} ${list(fk.columns)} -> ${fk.references} ${list(fk.referencedColumns)}`;
    if (target === undefined) continue;
    if (placement === 'distributed' && target === 'distributed' && !pairsTenant(fk)) {
      gaps.push(`${shape} does not include ${DISTRIBUTION_COLUMN} on both sides`);
    } else if (placement !== 'local' && target === 'local') {
      gaps.push(`${shape} references a local table`);
    } else if (placement === 'reference' && target === 'distributed') {
      gaps.push(`${shape}: a reference table cannot reference a distributed one`);
    } else if (placement === 'local' && target !== 'local') {
      gaps.push(`${shape}: a local table cannot reference a ${target} one`);
    }
  }
  return gaps;
}

/**
 * The gaps between the schema and the plan: a table with no placement, a planned table that does
 * not exist, a distributed table without a NOT NULL `tenant_id` leading its primary key, a unique
 * key without `tenant_id` (Citus refuses it), a foreign key between distributed tables that does
 * not pair `tenant_id` with `tenant_id`, and foreign keys across placements Citus does not allow.
 */
export function schemaGaps(
  tables: readonly TableFacts[],
  plan: Readonly<Record<string, Placement>>,
): SchemaReport {
  const gaps: string[] = [];
  const ready: string[] = [];
  const notReady: string[] = [];
  for (const table of [...tables].sort((a, b) => a.name.localeCompare(b.name))) {
    const placement = plan[table.name];
    const own =
      placement === undefined
        ? ['has no placement (distributed, reference or local)']
        : [...(placement === 'distributed' ? keyGaps(table) : []), ...foreignKeyGaps(table, placement, plan)];
    gaps.push(...own.map((gap) => `${table.name}: ${gap}`));
    (own.length === 0 ? ready : notReady).push(table.name);
  }
  const present = new Set(tables.map((t) => t.name));
  for (const name of Object.keys(plan).sort()) {
    if (!present.has(name)) gaps.push(`${name}: planned as ${plan[name]} but not in the schema`);
  }
  return { gaps, ready, notReady };
}
