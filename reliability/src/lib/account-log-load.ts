import type { Pool } from 'undici';
import { call } from './http.js';

/** One account-log request of the load: its idempotency key fixes its body. */
export function logBody(key: string) {
  return {
    source: 'reliability',
    type: 'crash-load',
    domain: 'crash.reliability.example',
    payload: { key },
    idempotencyKey: key,
  };
}

/** What a load run saw: every key tried, and the entry of every acknowledged one. */
export interface LoadOutcome {
  tried: Set<string>;
  /** Acknowledged (201 created or 200 replayed) keys and their entry ids. */
  acked: Map<string, string>;
  accountId: string | undefined;
  /** Answers other than 200/201 while the server was up (must stay 0). */
  unexpected: string[];
  /** Transport failures (expected once the server is killed). */
  transportErrors: number;
}

/**
 * Runs `connections` workers posting account logs with fresh idempotency keys (and some replays
 * of acknowledged keys) until `stop()` resolves. Keys are prefixed so runs never collide.
 */
export async function accountLogLoad(
  client: Pool,
  apiKey: string,
  options: { connections: number; prefix: string; until: Promise<void> },
): Promise<LoadOutcome> {
  const outcome: LoadOutcome = {
    tried: new Set(),
    acked: new Map(),
    accountId: undefined,
    unexpected: [],
    transportErrors: 0,
  };
  let stopped = false;
  void options.until.then(() => {
    stopped = true;
  });
  const worker = async (w: number) => {
    for (let i = 0; !stopped; i += 1) {
      const ackedKeys = [...outcome.acked.keys()];
      const replay = i % 5 === 4 && ackedKeys.length > 0;
      const key = replay
        ? (ackedKeys[(w * 7919 + i) % ackedKeys.length] as string)
        : `${options.prefix}-${w}-${i}`;
      outcome.tried.add(key);
      try {
        const res = await call(client, 'POST', '/v0/account_logs', { apiKey, body: logBody(key) });
        const entry = res.body as { accountLogId?: string; accountId?: string };
        if ((res.status === 201 || res.status === 200) && entry.accountLogId) {
          const earlier = outcome.acked.get(key);
          if (earlier && earlier !== entry.accountLogId) {
            outcome.unexpected.push(`${key}: replay returned ${entry.accountLogId}, first ${earlier}`);
          }
          outcome.acked.set(key, entry.accountLogId);
          outcome.accountId = entry.accountId;
        } else {
          outcome.unexpected.push(`${key}: ${res.status} ${res.text.slice(0, 200)}`);
        }
      } catch {
        outcome.transportErrors += 1;
        if (stopped) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections }, (_, w) => worker(w)));
  return outcome;
}
