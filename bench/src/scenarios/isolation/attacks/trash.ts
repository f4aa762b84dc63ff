// Attack 1: eight searches of the trash in flight whose pattern has no letters (`%` × 200).
import type { Attack } from '../attack.js';
import { paced, request } from '../requests.js';

/** Attack 1: eight searches in flight whose pattern has no letters (`%` × 200). */
export const trashSearch: Attack = async ({ url, a, signal, gate }) => {
  const path = `/v0/assets/trash?limit=100&query=${'%25'.repeat(200)}`;
  const statuses = await paced({
    signal,
    gate,
    parallel: 8,
    perSecond: 12,
    send: (cancel) => request(url, a.apiKey, 'GET', path, undefined, cancel),
  });
  return { attacker: statuses };
};
