// The loopback webhook receiver of the webhook peers scenario, in a process of its own so that the
// deliveries of every system land on the same code and on an event loop nothing else runs on. It
// answers 200 at once and keeps, for the current run, the arrivals of the events it was told to
// expect (by versionId): the first arrival of each, every arrival counted, stray ones apart.
// Instants are on the machine's monotonic clock (`hrNow`), which every process shares, so that a
// commit instant taken by the coordinator and an arrival instant taken here can be subtracted.
//
// `startReceiver()` (the coordinator's side) forks this file on the coordinator's Node and talks to
// it over the IPC channel; nothing crosses that channel while deliveries are being timed except the
// one answer to a `wait`.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

/** Milliseconds on CLOCK_MONOTONIC (the same clock in every process of the machine). */
export const hrNow = (): number => Number(process.hrtime.bigint()) / 1e6;

/** The receiver's state of the current run. */
export interface ReceiverState {
  arrived: number;
  total: number;
  stray: number;
  firstAt: number;
  lastAt: number;
}

/** What the coordinator asks the receiver over the IPC channel. */
type Ask =
  | { op: 'reset' | 'state' }
  | { op: 'expect'; keys: string[] }
  | { op: 'wait'; count: number }
  | { op: 'arrivals'; keys: string[] }
  | { op: 'cancel'; wait: number };
/** A question with the id its answer carries. */
type Question = Ask & { id?: number };
/** What the receiver answers: its state, or the arrival instants asked for. */
type Answer = { id: number } & (ReceiverState | { instants: (number | null)[] });
/** The receiver's first message: the port it listens on. */
interface Ready {
  op: 'ready';
  port: number;
}

/** Sends `message` to the coordinator (the receiver runs with an IPC channel). */
const tell = (message: Answer | Ready): void => {
  process.send?.(message);
};

if (process.argv[2] === '--serve') serve();

function serve(): void {
  let run = newRun();
  const waits: { id: number; count: number }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = hrNow();
      const key = /"versionId":"([^"]+)"/.exec(Buffer.concat(chunks).toString('utf8'))?.[1];
      res.writeHead(200).end();
      if (!key || !run.expected.has(key)) {
        run.stray += 1;
        return;
      }
      run.total += 1;
      if (run.first.has(key)) return;
      run.first.set(key, now);
      if (!run.firstAt) run.firstAt = now;
      run.lastAt = now;
      settle();
    });
  });
  const state = (): ReceiverState => ({
    arrived: run.first.size,
    total: run.total,
    stray: run.stray,
    firstAt: run.firstAt,
    lastAt: run.lastAt,
  });
  function settle() {
    for (let i = waits.length - 1; i >= 0; i -= 1) {
      const wait = waits[i];
      if (!wait || run.first.size < wait.count) continue;
      tell({ id: wait.id, ...state() });
      waits.splice(i, 1);
    }
  }
  process.on('message', (m: Question) => {
    if (m.op === 'reset') {
      run = newRun();
      waits.length = 0;
    } else if (m.op === 'expect') {
      for (const key of m.keys) run.expected.add(key);
    } else if (m.op === 'wait') {
      waits.push({ id: m.id ?? -1, count: m.count });
      settle();
      return;
    } else if (m.op === 'arrivals') {
      tell({ id: m.id ?? -1, instants: m.keys.map((k) => run.first.get(k) ?? null) });
      return;
    } else if (m.op === 'cancel') {
      const i = waits.findIndex((w) => w.id === m.wait);
      if (i >= 0) waits.splice(i, 1);
    }
    if (m.id !== undefined) tell({ id: m.id, ...state() });
  });
  process.on('disconnect', () => process.exit(0));
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    tell({ op: 'ready', port: typeof address === 'object' && address ? address.port : 0 });
  });
}

function newRun() {
  return {
    expected: new Set<string>(),
    first: new Map<string, number>(),
    total: 0,
    stray: 0,
    firstAt: 0,
    lastAt: 0,
  };
}

/** The coordinator's side of a receiver process (see {@link startReceiver}). */
export interface Receiver {
  url: string;
  pid: number | undefined;
  reset(): Promise<unknown>;
  expect(keys: string[]): Promise<unknown>;
  wait(count: number): { id: number; done: Promise<ReceiverState> };
  cancel(wait: number): Promise<unknown>;
  state(): Promise<ReceiverState>;
  arrivals(keys: string[]): Promise<(number | null)[]>;
  stop(): Promise<void>;
}

/**
 * Forks the receiver and returns `{ url, pid, reset(), expect(keys), wait(count), cancel(id),
 * state(), arrivals(keys), stop() }`. `wait(count)` returns `{ id, done }`: `done` resolves with the
 * run's state once `count` distinct expected events have arrived.
 */
export async function startReceiver(): Promise<Receiver> {
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], {
    execPath: process.execPath,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const [ready] = (await once(child, 'message')) as [Ready];
  let nextId = 0;
  const pending = new Map<number, (answer: Answer) => void>();
  child.on('message', (m: Answer) => {
    const resolve = pending.get(m.id);
    if (!resolve) return;
    pending.delete(m.id);
    resolve(m);
  });
  const ask = (message: Ask) => {
    const id = nextId++;
    const answer = new Promise<Answer>((resolve) => pending.set(id, resolve));
    child.send({ ...message, id });
    return { id, answer };
  };
  const asState = async (answer: Promise<Answer>): Promise<ReceiverState> => {
    const m = await answer;
    if ('instants' in m) throw new Error('the receiver answered arrivals where its state was asked');
    return m;
  };
  return {
    url: `http://127.0.0.1:${ready.port}/hooks`,
    pid: child.pid,
    reset: () => ask({ op: 'reset' }).answer,
    expect: (keys) => ask({ op: 'expect', keys }).answer,
    wait(count) {
      const { id, answer } = ask({ op: 'wait', count });
      return { id, done: asState(answer) };
    },
    cancel: (wait) => ask({ op: 'cancel', wait }).answer,
    state: () => asState(ask({ op: 'state' }).answer),
    arrivals: async (keys) => {
      const m = await ask({ op: 'arrivals', keys }).answer;
      return 'instants' in m ? m.instants : [];
    },
    async stop() {
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    },
  };
}
