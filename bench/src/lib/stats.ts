// Small statistics over repetitions: every figure in the report is min / median / max.
import type { Spread } from '../results.js';

/** Median of numbers (mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const mid = Math.floor(s.length / 2);
  const at = (i: number) => s[i] ?? Number.NaN;
  return s.length % 2 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
}

/** `{ min, median, max }` of the values. */
export function spread(values: readonly number[]): Spread {
  return { min: Math.min(...values), median: median(values), max: Math.max(...values), n: values.length };
}

/** The p-th percentile (0-1) of samples (nearest rank). */
export function percentile(samples: readonly number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))] ?? Number.NaN;
}

/** Formats a spread as `median (min-max)` with `digits` decimals. */
export function fmtSpread(s: Spread | undefined, digits = 0): string {
  if (!s || Number.isNaN(s.median)) return 'n/a';
  const f = (v: number) => v.toFixed(digits);
  return `${f(s.median)} (${f(s.min)}–${f(s.max)})`;
}
