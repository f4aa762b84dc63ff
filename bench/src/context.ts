// What every scenario is given: the run's mode and sizes, the Node binaries, and a progress line.
import type { TenantKey } from './lib/db.js';

/** The run's settings, as main.ts makes them. */
export interface BenchContext {
  quick: boolean;
  smoke: boolean;
  /** Rounds of each measurement. */
  reps: number;
  loadSeconds: number;
  warmupSeconds: number;
  nodes: { n24: string; n20: string | undefined };
  progress: (line: string) => void;
}

/** The context of the scenarios on the shared `bench` database and its Node 24 server. */
export interface SharedContext extends BenchContext {
  databaseUrl: string;
  /** The tenant whose pages scenario 1 lists. */
  pages: TenantKey;
}
