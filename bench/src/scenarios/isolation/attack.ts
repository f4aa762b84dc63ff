// What an isolation attack is given and answers.
import type { TenantKey } from '../../lib/db.js';
import type { AttackOutcome } from '../../results.js';
import type { Gate } from './requests.js';

/** Each mode's sizes of the scenario (see isolation.ts). */
export interface Sizes {
  seconds: number;
  settleMs: number;
  startMs: number;
  trash: number;
  messages: number;
  subscriptions: number;
  slowMs: number;
  bAfterMs: number;
  idle: number;
}

/** B's data: an account, and a page with an audience for its webhook event. */
export interface QuietB {
  accountId: string;
  pageId: string;
  audienceId: string;
}

/** What an attack's worker thread is given (its `workerData`, but for the attack's key). */
export interface AttackData {
  url: string;
  a: TenantKey;
  b: TenantKey & { measureKeys: string[] };
  quietB: QuietB;
  sizes: Sizes;
}

/** What an attack runs with: its data, the stop signal, the pause gate, and `built()`. */
export interface AttackArgs extends AttackData {
  signal: AbortSignal;
  gate: Gate;
  /** Says the attack's data set is built (B measures the attack, not the building). */
  built: () => void;
}

/** An attack of tenant A; resolves with what A got, once `signal` aborts. */
export type Attack = (args: AttackArgs) => Promise<AttackOutcome>;
