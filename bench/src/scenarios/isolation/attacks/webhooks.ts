// Attack 3: slow webhook receivers behind many subscriptions, then B's own event.
import { createServer } from 'node:http';
import { api } from '../../../lib/ours.js';
import { freePort } from '../../../lib/proc.js';
import type { Counts } from '../../../results.js';
import type { Attack } from '../attack.js';
import { newAudience, request, sleep } from '../requests.js';

/** Longest B waits for its event in the webhook attack (the first release candidate took 171 s). */
const MAX_WAIT_MS = 120_000;

/** A receiver that answers every delivery after `delayMs`, counting them. */
async function receiver(delayMs: number) {
  const port = await freePort();
  const received: { at: number; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ at: Date.now(), body });
      setTimeout(() => res.end('ok'), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    // Deliveries keep coming while the dispatcher works through its backlog: cut them off.
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Attack 3 (full sizes; smaller in a smoke run): A asks for 300 subscriptions to a receiver
 * answering after 9 s and creates versions (each fans out to all of them); 2 s later B, subscribed
 * to a prompt receiver, creates one version: how long from B's commit to its delivery?
 */
export const slowReceivers: Attack = async ({ url, a, b, quietB, signal, sizes }) => {
  const slow = await receiver(sizes.slowMs);
  const fast = await receiver(0);
  try {
    const subscriptions: Counts = {};
    for (let i = 0; i < sizes.subscriptions; i += 1) {
      const body = JSON.stringify({ url: slow.url });
      const status = await request(url, a.apiKey, 'POST', '/v0/webhook_subscriptions', body);
      subscriptions[status] = (subscriptions[status] ?? 0) + 1;
    }
    await api(url, b.apiKey, 'POST', '/v0/webhook_subscriptions', { url: fast.url });
    const audience = await newAudience(url, a.apiKey, 1);
    for (let i = 0; i < 5; i += 1) {
      await api(
        url,
        a.apiKey,
        'POST',
        `/v0/pages/${audience.pageId}/audiences/${audience.audienceId}/versions`,
        {},
      );
    }
    await sleep(sizes.bAfterMs);
    // Taken before the request: an upper bound of commit-to-receipt.
    const committed = Date.now();
    await api(
      url,
      b.apiKey,
      'POST',
      `/v0/pages/${quietB.pageId}/audiences/${quietB.audienceId}/versions`,
      {},
    );
    while (fast.received.length === 0 && Date.now() - committed < MAX_WAIT_MS) await sleep(50);
    // Not delivered within the wait: reported as the wait (a lower bound).
    const first = fast.received[0];
    const deliveredAfterMs = first ? first.at - committed : MAX_WAIT_MS;
    while (!signal.aborted) await sleep(100);
    return { subscriptions, aDeliveriesStarted: slow.received.length, bDeliveredAfterMs: deliveredAfterMs };
  } finally {
    await slow.close();
    await fast.close();
  }
};
