// The loopback receiver of a scenario 4 round, in the round's own process: it answers 200 at once,
// counts arrivals and, for latency, maps each event's versionId to its arrival instant
// (`performance.now()`). Whoever waits for arrivals is woken on each one.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';

/** What has arrived since the counts were last reset. */
export const arrivals = {
  received: 0,
  firstAt: 0,
  lastAt: 0,
  /** Arrival instant by versionId. */
  byVersion: new Map<string, number>(),
};

/** Callbacks to run on the next arrival (or when a dispatcher fails). */
const waiters: (() => void)[] = [];

/** Runs `check` on the next arrival. */
export const onNextArrival = (check: () => void): void => {
  waiters.push(check);
};

/** Runs every waiting callback once. */
export function wakeWaiters(): void {
  for (const w of waiters.splice(0)) w();
}

/** Starts the receiver; answers its URL and how to close it. */
export async function startDrainReceiver(): Promise<{ url: string; close: () => void }> {
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = performance.now();
      arrivals.received += 1;
      if (!arrivals.firstAt) arrivals.firstAt = now;
      arrivals.lastAt = now;
      const m = /"versionId":"([^"]+)"/.exec(Buffer.concat(chunks).toString('utf8'));
      if (m?.[1]) arrivals.byVersion.set(m[1], now);
      res.writeHead(200).end();
      wakeWaiters();
    });
  });
  receiver.keepAliveTimeout = 60_000;
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const address = receiver.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/hooks`, close: () => receiver.close() };
}
