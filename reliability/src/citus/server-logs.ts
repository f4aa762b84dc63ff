import type { TrackedProcess } from '@customer-api/test-server';

/** The error and warning lines the server's processes log, collected while they run. */
export class ServerLogs {
  /** Error lines (pino level 50), one per process and message, as they came. */
  readonly errors = new Map<string, { line: string; count: number }>();
  /** Warning messages and how often each came. */
  readonly warnings = new Map<string, number>();

  /** Records `proc`'s error lines under `name` while it runs (its kept output is only its tail). */
  collect(name: string, proc: TrackedProcess): void {
    let partial = '';
    const read = (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const message =
          /"message":"([^"]{0,200})/.exec(line)?.[1] ?? /"msg":"([^"]{0,200})/.exec(line)?.[1] ?? '';
        if (line.includes('"level":40')) {
          // Warnings (a 503's cause among them): counted by message, ports and ids aside.
          const key = `${name}: ${message.replace(/[0-9]+/g, 'N')}`;
          this.warnings.set(key, (this.warnings.get(key) ?? 0) + 1);
        }
        if (!line.includes('"level":50')) continue;
        const key = `${name}: ${message}`;
        const seen = this.errors.get(key);
        if (seen) seen.count += 1;
        else this.errors.set(key, { line: `${name}: ${line.slice(0, 1500)}`, count: 1 });
      }
    };
    proc.child.stdout?.on('data', read);
    proc.child.stderr?.on('data', read);
  }

  /** The distinct errors the server's processes logged, with how often, for a failure's message. */
  errorLines(): string {
    return [...this.errors.values()].map((e) => `${e.count}x ${e.line}`).join('\n');
  }
}
