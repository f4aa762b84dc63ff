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
export const hrNow = () => Number(process.hrtime.bigint()) / 1e6;

if (process.argv[2] === '--serve') serve();

function serve() {
  let run = newRun();
  const waits = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
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
  const state = () => ({
    arrived: run.first.size,
    total: run.total,
    stray: run.stray,
    firstAt: run.firstAt,
    lastAt: run.lastAt,
  });
  function settle() {
    for (let i = waits.length - 1; i >= 0; i -= 1) {
      if (run.first.size < waits[i].count) continue;
      process.send({ id: waits[i].id, ...state() });
      waits.splice(i, 1);
    }
  }
  process.on('message', (m) => {
    if (m.op === 'reset') {
      run = newRun();
      waits.length = 0;
    } else if (m.op === 'expect') {
      for (const key of m.keys) run.expected.add(key);
    } else if (m.op === 'wait') {
      waits.push({ id: m.id, count: m.count });
      settle();
      return;
    } else if (m.op === 'arrivals') {
      process.send({ id: m.id, instants: m.keys.map((k) => run.first.get(k) ?? null) });
      return;
    } else if (m.op === 'cancel') {
      const i = waits.findIndex((w) => w.id === m.wait);
      if (i >= 0) waits.splice(i, 1);
    }
    if (m.id !== undefined) process.send({ id: m.id, ...state() });
  });
  process.on('disconnect', () => process.exit(0));
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send({ op: 'ready', port: server.address().port }));
}

function newRun() {
  return { expected: new Set(), first: new Map(), total: 0, stray: 0, firstAt: 0, lastAt: 0 };
}

/**
 * Forks the receiver and returns `{ url, pid, reset(), expect(keys), wait(count), cancel(id),
 * state(), arrivals(keys), stop() }`. `wait(count)` returns `{ id, done }`: `done` resolves with the
 * run's state once `count` distinct expected events have arrived.
 */
export async function startReceiver() {
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], {
    execPath: process.execPath,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const [ready] = await once(child, 'message');
  let nextId = 0;
  const pending = new Map();
  child.on('message', (m) => {
    const resolve = pending.get(m.id);
    if (!resolve) return;
    pending.delete(m.id);
    resolve(m);
  });
  const ask = (message) => {
    const id = nextId++;
    const answer = new Promise((resolve) => pending.set(id, resolve));
    child.send({ ...message, id });
    return { id, answer };
  };
  return {
    url: `http://127.0.0.1:${ready.port}/hooks`,
    pid: child.pid,
    reset: () => ask({ op: 'reset' }).answer,
    expect: (keys) => ask({ op: 'expect', keys }).answer,
    wait(count) {
      const { id, answer } = ask({ op: 'wait', count });
      return { id, done: answer };
    },
    cancel: (wait) => ask({ op: 'cancel', wait }).answer,
    state: () => ask({ op: 'state' }).answer,
    arrivals: async (keys) => (await ask({ op: 'arrivals', keys }).answer).instants,
    async stop() {
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    },
  };
}
