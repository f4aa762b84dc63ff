// Formatting of the notes' figures, as the report's tables print them.
import type { NotesInput, Spread } from './input.js';

/** What a note says where its figure is absent from the run. */
export const NOT_MEASURED = 'not measured in this run';

/** Whether `s` is a spread with a finite median. */
export function has(s: Spread | undefined): s is Spread {
  return s !== undefined && Number.isFinite(s.median) && Number.isFinite(s.min) && Number.isFinite(s.max);
}

/** Whether `v` is a finite number. */
export function finite(v: number | undefined): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

/** A number with thousands separators and `digits` decimals. */
export function num(v: number, digits = 0): string {
  return v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** `median (min–max)` with `digits` decimals, or `NOT_MEASURED`. */
export function spread(s: Spread | undefined, digits = 0): string {
  if (!has(s)) return NOT_MEASURED;
  return `${num(s.median, digits)} (${num(s.min, digits)}–${num(s.max, digits)})`;
}

/** A ratio's spread with 2 decimals, or `NOT_MEASURED`. */
export function ratio(s: Spread | undefined): string {
  return spread(s, 2);
}

/** A fraction as a percentage with one decimal. */
export function pct(v: number): string {
  return `${num(v * 100, 1)} %`;
}

/** `a / b` of two medians, when both are finite and `b` is not zero. */
export function over(a: number | undefined, b: number | undefined): number | undefined {
  if (!finite(a) || !finite(b) || b === 0) return undefined;
  return a / b;
}

/** Bold verdict of a target. */
export function verdict(ok: boolean): string {
  return ok ? '**met**' : '**missed**';
}

/** Verdict of a median at least `target`, with where the rounds' spread lies. */
export function atLeast(s: Spread, target: number): string {
  if (s.median >= target) return s.min >= target ? 'met in every round' : 'met at the median';
  return s.max >= target ? 'missed at the median, reached in some rounds' : 'missed in every round';
}

/** Verdict of a median at most `target`, with where the rounds' spread lies. */
export function atMost(s: Spread, target: number): string {
  if (s.median <= target) return s.max <= target ? 'met in every round' : 'met at the median';
  return s.min <= target ? 'missed at the median, reached in some rounds' : 'missed in every round';
}

/** An ISO timestamp as `YYYY-MM-DD HH:MM UTC`; anything else as given. */
export function when(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return m ? `${m[1]} ${m[2]} UTC` : iso;
}

/** When a section was measured: alone (its re-measurement) or with the run, and the load average. */
export function measuredAt(results: NotesInput, section: string, scenarioLoad?: string): string {
  const again = results.remeasured?.[section];
  const [at, load] = again ? again.split(' (load average ') : [];
  const runLoad = again ? load?.replace(/\)$/, '') : results.machine?.loadAtStart;
  const loadText = scenarioLoad
    ? `, load average ${scenarioLoad} when the scenario started`
    : runLoad
      ? `, load average ${runLoad} at its start`
      : '';
  if (again) return `measured alone at ${when(at ?? again)}${loadText}`;
  const start = results.startedAt ? when(results.startedAt) : 'an unrecorded time';
  return `measured in the run of ${start}${loadText}`;
}

/** Paragraphs joined by blank lines, empty ones left out. */
export function paragraphs(...parts: (string | undefined | false)[]): string {
  return parts.filter((p): p is string => typeof p === 'string' && p.length > 0).join('\n\n');
}

/** The link to the hand-written history of past runs. */
export const HISTORY = '[benchmarks-history.md](benchmarks-history.md)';
