// The attacks of the isolation scenario, in the order they run: key (BENCH_ISOLATION_ATTACKS's
// names), the report's label, and the attack.
import type { Attack } from './attack.js';
import { connections } from './attacks/connections.js';
import { messageHistories } from './attacks/messages.js';
import { oversizedBodies } from './attacks/oversized.js';
import { trashSearch } from './attacks/trash.js';
import { slowReceivers } from './attacks/webhooks.js';

/** Every attack: key, label, attack. */
export const ATTACKS: [key: string, label: string, run: Attack][] = [
  ['trash', 'trash search without letters', trashSearch],
  ['messages', 'huge message histories', messageHistories],
  ['webhooks', 'slow webhook receivers', slowReceivers],
  ['connections', 'idle and trickling connections', connections],
  ['oversized', 'oversized message bodies', oversizedBodies],
];

/** The attacks that build a data set of their own before B measures (they call `built()`). */
export const BUILDING: ReadonlySet<Attack> = new Set([messageHistories]);
