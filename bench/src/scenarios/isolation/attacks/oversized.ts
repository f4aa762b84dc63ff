// Attack 5: message bodies larger than any valid message.
import { api } from '../../../lib/ours.js';
import type { Attack } from '../attack.js';
import { paced, pageBody, request } from '../requests.js';

/**
 * Attack 5: A posts message bodies of 1 MiB (the most any route reads), four at a time, eight a
 * second: more than any valid message, so every one is refused with 400. Before each route's body
 * limit followed from its bounds, the server read and parsed each of them first.
 */
export const oversizedBodies: Attack = async ({ url, a, signal, gate }) => {
  const page = await api<{ pageId: string }>(url, a.apiKey, 'POST', '/v0/pages', pageBody(0));
  const audience = await api<{ audienceId: string }>(
    url,
    a.apiKey,
    'POST',
    `/v0/pages/${page.pageId}/audiences`,
    {},
  );
  const path = `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/messages`;
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
