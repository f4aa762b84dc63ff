import type { Attempt } from '../ha/load.js';

/** When each step of the scenario began (`performance.now()`), to say where the answers other than 2xx came. */
export class Phases {
  readonly #steps: { name: string; at: number }[] = [];

  /** Step `name` begins now. */
  begin(name: string): void {
    this.#steps.push({ name, at: performance.now() });
  }

  /** Per step: exchanges, 503s and other 5xx. */
  byPhase(attempts: Attempt[]): string {
    const phases = this.#steps;
    return phases
      .map((p, i) => {
        const end = phases[i + 1]?.at ?? Number.POSITIVE_INFINITY;
        const mine = attempts.filter((a) => a.at >= p.at && a.at < end);
        const other = mine.filter((a) => a.status >= 500 && a.status !== 503).length;
        return `${p.name} ${mine.length} exchanges, ${mine.filter((a) => a.status === 503).length} 503, ${other} other 5xx`;
      })
      .join('; ');
  }
}
