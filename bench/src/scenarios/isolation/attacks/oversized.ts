// Attack 5: message bodies larger than any valid message.
import type { Attack } from '../attack.js';
import { newAudience, paced, request } from '../requests.js';

/**
 * Attack 5: A posts message bodies of 1 MiB (the most any route reads), four at a time, eight a
 * second: more than any valid message, so every one is refused with 400. Before each route's body
 * limit followed from its bounds, the server read and parsed each of them first.
 */
export const oversizedBodies: Attack = async ({ url, a, signal, gate }) => {
  const audience = await newAudience(url, a.apiKey, 0);
  const path = `/v0/pages/${audience.pageId}/audiences/${audience.audienceId}/messages`;
  const body = JSON.stringify({ role: 'user', content: 'x'.repeat(1024 * 1024 - 1024) });
  const statuses = await paced({
    signal,
    gate,
    parallel: 4,
    perSecond: 8,
    send: (cancel) => request(url, a.apiKey, 'POST', path, body, cancel),
  });
  return { attacker: statuses, bodyKiB: Math.round(body.length / 1024) };
};
