// What every scenario's results are made of (see ../results.ts).

/** A figure over repetitions: median (min–max) of `n` values. */
export interface Spread {
  min: number;
  median: number;
  max: number;
  n: number;
}

/** Count of answers or outcomes by status (`"200"`, `"cancelled"`, …). */
export type Counts = Record<string, number>;

/** What the run ran on. */
export interface Machine {
  cpus: number;
  model: string;
  memGiB: number;
  kernel: string;
  loadAtStart: string;
  postgres: string;
}
