import { sleep } from './http.js';
import type { ServerProcess } from './server-process.js';

/** One process's `/metrics`, as `name{labels}` → value. */
export async function scrape(port: number): Promise<Map<string, number>> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  if (!res.ok) throw new Error(`/metrics on ${port}: ${res.status}`);
  const samples = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (match) samples.set(match[1] as string, Number(match[2]));
  }
  return samples;
}

/** Sum of the samples of `name` whose labels contain every `label="value"` given. */
export function total(samples: Map<string, number>, name: string, ...labels: string[]): number {
  let sum = 0;
  for (const [key, value] of samples) {
    if ((key === name || key.startsWith(`${name}{`)) && labels.every((l) => key.includes(l))) sum += value;
  }
  return sum;
}

/** Waits until `proc` answers on its metrics `port`; throws when it exits or never does. */
export async function waitScrapable(port: number, proc: ServerProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (proc.child.exitCode !== null) throw new Error(`process exited:\n${proc.output()}`);
    if (
      await scrape(port).then(
        () => true,
        () => false,
      )
    )
      return;
    await sleep(100);
  }
  throw new Error(`/metrics never answered:\n${proc.output()}`);
}
