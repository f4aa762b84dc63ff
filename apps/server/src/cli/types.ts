// Types the CLI's commands share: they import them from here, never from cli.ts, which imports them.

/** Where a CLI run reads its environment and writes its output. */
export interface CliIo {
  /** The environment; `process.env` (read by config.ts) when absent. */
  env?: Record<string, string | undefined>;
  out(text: string): void;
  err(text: string): void;
  /** Where progress bars draw (redrawn in place on a terminal); written through `err` when absent. */
  errStream?: NodeJS.WritableStream;
}
