// Attack 2: huge message histories, read 16 at a time.
import type { Attack } from '../attack.js';
import { newAudience, paced, request } from '../requests.js';

/**
 * Attack 2: A fills an audience's history with the largest messages the server takes (from
 * 1 MiB down, halving on 400) up to `sizes.messages` of them (150 in a full run), says the data
 * set is `built`, then reads the history 16 at a time.
 */
export const messageHistories: Attack = async ({ url, a, signal, gate, sizes, built }) => {
  const audience = await newAudience(url, a.apiKey, 0);
  const path = `/v0/pages/${audience.pageId}/audiences/${audience.audienceId}/messages`;
  let size = 1024 * 1024 - 1024;
  let stored = 0;
  const target = sizes.messages;
  while (stored < target && size > 1024) {
    const body = JSON.stringify({
      role: 'assistant',
      content: 'result',
      toolCalls: [{ id: 'call', name: 'tool', status: 'complete', arguments: {}, result: 'x'.repeat(size) }],
    });
    const status = await request(url, a.apiKey, 'POST', path, body);
    if (status === 201) stored += 1;
    else if (status === 400 && stored === 0) size = Math.floor(size / 2);
    else break; // a cap on the history (or the rate limit): stop filling
  }
  built();
  const statuses = await paced({
    signal,
    gate,
    parallel: 16,
    perSecond: 12,
    send: (cancel) => request(url, a.apiKey, 'GET', path, undefined, cancel),
  });
  return { attacker: statuses, stored, messageKiB: Math.round(size / 1024) };
};
