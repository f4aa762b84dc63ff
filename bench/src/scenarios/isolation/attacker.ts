// The worker thread tenant A attacks from (see ./in-worker.ts): it runs the attack `workerData`
// names, pauses and resumes its paced requests when told, and posts `{ built: true }` once the
// attack's data set is built, then `{ result }` once it is stopped.
import { parentPort, workerData } from 'node:worker_threads';
import type { AttackData } from './attack.js';
import { ATTACKS, BUILDING } from './attacks.js';
import { pauseGate } from './requests.js';

const data = workerData as AttackData & { attack: string };
const port = parentPort;
const entry = ATTACKS.find(([key]) => key === data.attack);
if (!port || !entry) throw new Error(`no attack ${data.attack} to run in a worker thread`);
const stop = new AbortController();
const gate = pauseGate(stop.signal);
port.on('message', (message: string) => {
  if (message === 'stop') stop.abort();
  else gate.pause(message === 'pause');
});
const [, , run] = entry;
const built = () => port.postMessage({ built: true });
// Attacks without a data set of their own are built at once.
if (!BUILDING.has(run)) built();
port.postMessage({ result: await run({ ...data, signal: stop.signal, gate, built }) });
