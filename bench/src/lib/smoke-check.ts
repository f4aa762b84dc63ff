// The whole check of `pnpm bench --smoke`: every scenario produced its figures. Figures are never
// compared with the targets (a smoke run's sizes are far too small for that); a figure that is
// not a finite number, a list of samples that stayed empty, or a report line that prints NaN,
// undefined or Infinity means a scenario ran without measuring what it reports.

/** Paths (`a.b[2].c`) under `value` holding a non-finite number or an empty list. */
function emptyPaths(value: unknown, path: string, out: string[]): string[] {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) out.push(`${path} = ${value}`);
  } else if (Array.isArray(value)) {
    if (value.length === 0) out.push(`${path} is empty`);
    for (const [i, item] of value.entries()) emptyPaths(item, `${path}[${i}]`, out);
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) emptyPaths(item, `${path}.${key}`, out);
  }
  return out;
}

/** What is missing from scenario `name`'s figures (`result`, as main.ts stores it); empty when all are there. */
export function emptyFigures(name: string, result: unknown): string[] {
  return emptyPaths(result, name, []).map((p) => `${p}: no figure`);
}

/** Lines of a rendered report that print NaN, undefined or Infinity where a figure belongs. */
export function emptyReportLines(markdown: string): string[] {
  return markdown
    .split('\n')
    .filter((line) => /\b(NaN|undefined|Infinity)\b/.test(line))
    .map((line) => `report line without a figure: ${line.slice(0, 200)}`);
}
