import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `ci` (the package's `test` script, run by `pnpm test`): bounded to a few minutes on a loaded
 * 2-core machine. `full` (`pnpm test:reliability`): the figures recorded in docs/reliability.md.
 */
export const PROFILE: 'ci' | 'full' = process.env.RELIABILITY_PROFILE === 'full' ? 'full' : 'ci';

/** The CI value or the full-run value of a figure. */
export function sized<T>(ci: T, full: T): T {
  return PROFILE === 'full' ? full : ci;
}

const RESULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '.artifacts');

/**
 * Prints one test's figures and appends them to `.artifacts/results-<profile>.jsonl` (ignored by
 * git), the source of the table in docs/reliability.md.
 */
export function report(test: string, figures: Record<string, number | string>): void {
  const line = { test, profile: PROFILE, at: new Date().toISOString(), ...figures };
  console.log(`[reliability] ${JSON.stringify(line)}`);
  mkdirSync(RESULTS_DIR, { recursive: true });
  appendFileSync(join(RESULTS_DIR, `results-${PROFILE}.jsonl`), `${JSON.stringify(line)}\n`);
}
