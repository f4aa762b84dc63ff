import { type Attempt, type Load, type LoadResult, startLoad, type Worker } from '../ha/load.js';

/** The load of every tenant: one worker each on its API process, and one more for the busy tenant on the other. */
export interface TenantLoads {
  byTenant: Load[][];
  stop(): Promise<LoadResult[][]>;
}

/**
 * Starts {@link TenantLoads}: tenant i's worker on `apiUrlOf(i)`, and the `busy` tenant's second
 * worker on `apiUrlOf(busy + 1)`.
 */
export function startTenantLoads(
  workers: Worker[],
  apiUrlOf: (i: number) => string,
  busy: number,
  prefix: string,
): TenantLoads {
  const byTenant = workers.map((worker, i) => {
    const loads = [startLoad(apiUrlOf(i), `${prefix}-t${i}-a`, [worker])];
    if (i === busy) loads.push(startLoad(apiUrlOf(i + 1), `${prefix}-t${i}-b`, [worker]));
    return loads;
  });
  return {
    byTenant,
    stop: () => Promise.all(byTenant.map((loads) => Promise.all(loads.map((l) => l.stop())))),
  };
}

/** An exchange answered 2xx. */
export const ok = (a: Attempt) => a.status >= 200 && a.status < 300;

/** Attempts of tenant i answered 2xx that ended in [from, to]. */
export function servedBetween(loads: TenantLoads, i: number, from: number, to: number): number {
  return (loads.byTenant[i] as Load[])
    .flatMap((l) => l.attempts)
    .filter((a) => ok(a) && a.at + a.ms >= from && a.at + a.ms <= to).length;
}
