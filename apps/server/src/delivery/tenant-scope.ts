import { type Param, raw, type Sql, sql } from '../db/sql.js';

/**
 * The tenant a statement of the delivery engine is confined to, or undefined for every tenant. A
 * confined statement names its tenant on every row it reads or writes (`inTenant`), so that Citus
 * runs it whole on that tenant's shard; one for every tenant spans shards (decision 0233).
 */
export type TenantScope = Param<string> | undefined;

/** ` AND alias.tenant_id = $tenant` for a statement confined to a tenant ({@link TenantScope}); nothing otherwise. */
export function inTenant(alias: string, scope: TenantScope): Sql {
  return scope ? sql` AND ${raw(alias)}.tenant_id = ${scope}` : raw('');
}

/** `items` grouped by `keyOf` (a tenant, an event), in the order each key first appears. */
export function groupBy<T>(items: Iterable<T>, keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
