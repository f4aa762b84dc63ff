// The Markdown pieces every section of the report is made of.

/** A cell of a table: text, or a number printed as JavaScript prints it. */
export type Cell = string | number;

/** A Markdown table of `head` and `rows`. */
export const table = (head: readonly Cell[], rows: readonly (readonly Cell[])[]): string =>
  [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');

/** What a section is given to draw its tables with. */
export type Table = typeof table;

/** A target's verdict. */
export const verdict = (ok: boolean): string => (ok ? '**met**' : '**missed**');
