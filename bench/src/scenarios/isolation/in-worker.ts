// Runs an attack of tenant A in a worker thread (./attacker.ts): A is another client, so its
// handling of megabytes of responses must not delay B's measuring loop (they would share one event
// loop otherwise).
import { Worker } from 'node:worker_threads';
import type { AttackOutcome } from '../../results.js';
import type { AttackData } from './attack.js';

/** An attack under way in its worker thread. */
export interface RunningAttack {
  /** Resolves once the attack's data set is built (at once for attacks without one). */
  built: Promise<void>;
  /** Pauses A's paced requests (cancelling those under way), or lets them go on. */
  pause: (paused: boolean) => void;
  /** Ends the attack; resolves with its outcome. */
  stop: () => Promise<AttackOutcome>;
}

/** Starts attack `key` in a worker thread with `data`. */
export function attackInWorker(key: string, data: AttackData): RunningAttack {
  const worker = new Worker(new URL('./attacker.js', import.meta.url), {
    workerData: { attack: key, ...data },
  });
  let markBuilt = () => {};
  const built = new Promise<void>((resolve) => {
    markBuilt = resolve;
  });
  const outcome = new Promise<AttackOutcome>((resolve, reject) => {
    worker.on('message', (message: { built?: true; result?: AttackOutcome }) => {
      markBuilt(); // built, or over before it was (a failure shows in the result)
      if (!message.built) resolve(message.result ?? {});
    });
    worker.once('error', (error) => {
      markBuilt();
      reject(error);
    });
  });
  return {
    built,
    pause: (paused) => worker.postMessage(paused ? 'pause' : 'resume'),
    stop: async () => {
      worker.postMessage('stop');
      const result = await outcome;
      await worker.terminate();
      return result;
    },
  };
}
