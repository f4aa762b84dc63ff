import { Writable } from 'node:stream';
import { SingleBar } from 'cli-progress';
import type { CliIo } from './types.js';

/** A progress bar over a known total. */
export interface Progress {
  increment(by: number): void;
  stop(): void;
}

/**
 * A progress bar on the CLI's error output: redrawn in place on a terminal, a line every few
 * seconds otherwise (CI logs, pipes), so that stdout keeps only the command's result.
 */
export function startProgress(io: CliIo, label: string, total: number): Progress {
  const stream =
    io.errStream ??
    new Writable({
      write(chunk, _encoding, done) {
        io.err(String(chunk));
        done();
      },
    });
  const bar = new SingleBar({
    stream,
    format: `${label} [{bar}] {percentage}% | {value}/{total} | {eta_formatted} left`,
    noTTYOutput: true,
    notTTYSchedule: 2000,
    hideCursor: true,
    etaBuffer: 50,
  });
  bar.start(total, 0);
  return {
    increment: (by) => bar.increment(by),
    stop: () => bar.stop(),
  };
}
