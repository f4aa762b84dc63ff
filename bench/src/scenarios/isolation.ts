// Scenario "isolation": can one tenant slow down another? Tenant B measures `GET /v0/pages` and
// `GET /v0/accounts/{id}` quiet, then while tenant A, within its rate limit, runs each attack of
// the noisy-neighbour review in turn: unindexable trash searches over a large trash, huge message
// histories read in parallel, slow webhook receivers behind many subscriptions, and idle or
// trickling connections. B's quiet figures for an attack of paced requests come from windows with
// A paused, alternating with the attack's; for the others, from a phase just before. The server
// runs with its default limits (only the dispatcher and insecure webhook targets are switched on). BENCH_ISOLATION_BEFORE=<path of another build's
// apps/server/dist/main.js> runs the same attacks against that build too ("before").
// BENCH_ISOLATION_ATTACKS=trash,messages,webhooks,connections,oversized runs only those (while working on
// one; written to bench/results/partial.md, never docs/); A attacks from a worker thread, so its
// client's work never delays B's measuring loop; BENCH_ISOLATION_SECONDS sets how long B
// measures each phase; BENCH_ISOLATION_PROFILE=<dir> writes the server's CPU profile there (node
// --cpu-prof); BENCH_ISOLATION_NODE_ARGS adds Node options to the server's (e.g.
// `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=/tmp/snap`);
// BENCH_ISOLATION_ENV='{"TENANT_RESPONSE_BYTES_PER_S":"1048576"}' sets server settings (JSON), to
// see what a limit other than the default changes.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Pool } from 'undici';
import { ensureDatabase, pool as pgPool, tenantKey } from '../lib/db.mjs';
import { api } from '../lib/ours.mjs';
import { freePort, rssMiB, SERVER_MAIN, startProcess, stopProcess } from '../lib/proc.mjs';
import { percentile } from '../lib/stats.mjs';

/** The key of stored secrets of every server this scenario starts on its database. */
const SECRETS_KEY = randomBytes(32).toString('base64');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Longest B waits for its event in the webhook attack (the first release candidate took 171 s). */
const MAX_WAIT_MS = 120_000;
/** Pause between an attack's end and the quiet measure of the next attack's baseline. */
const SETTLE_MS = 3000;

/**
 * Each mode's sizes: B's phases, the pauses around attacks, and the attacks' own (the trash to
 * search, the messages to read, attack 3's subscriptions slower than B's phase and the wait before
 * B's event, attack 4's idle connections). Smoke: the smallest that still runs every attack's path.
 */
const SIZES = {
  full: {
    seconds: 20,
    settleMs: SETTLE_MS,
    startMs: 1000,
    trash: 200_000,
    messages: 150,
    subscriptions: 300,
    slowMs: 9_000,
    bAfterMs: 2000,
    idle: 10_000,
  },
  quick: {
    seconds: 5,
    settleMs: SETTLE_MS,
    startMs: 1000,
    trash: 50_000,
    messages: 40,
    subscriptions: 300,
    slowMs: 9_000,
    bAfterMs: 2000,
    idle: 2_000,
  },
  smoke: {
    seconds: 1.5,
    settleMs: 500,
    startMs: 300,
    trash: 2_000,
    messages: 5,
    subscriptions: 20,
    slowMs: 2_000,
    bAfterMs: 500,
    idle: 200,
  },
};
const sizeKey = (ctx) => (ctx.smoke ? 'smoke' : ctx.quick ? 'quick' : 'full');

/** Runs the scenario against this build, and against BENCH_ISOLATION_BEFORE when set. */
export async function runIsolation(ctx) {
  const out = { after: await runAgainst(ctx, SERVER_MAIN, 'after') };
  const before = process.env.BENCH_ISOLATION_BEFORE;
  if (before) out.before = await runAgainst(ctx, before, 'before');
  return out;
}

const ATTACKS = [
  ['trash', 'trash search without letters', trashSearch],
  ['messages', 'huge message histories', messageHistories],
  ['webhooks', 'slow webhook receivers', slowReceivers],
  ['connections', 'idle and trickling connections', connections],
  ['oversized', 'oversized message bodies', oversizedBodies],
];

/**
 * Attacks made of requests at a pace (A can pause them and go on at once): B's quiet figures for
 * these come from windows with A paused, alternating with windows of the attack, so both see the
 * same machine. The others hold state (backed-up deliveries, ten thousand sockets) that a pause
 * would not undo: their quiet figures are measured just before.
 */
const INTERLEAVED = new Set(['trash', 'messages', 'oversized']);

async function runAgainst(ctx, main, label) {
  const sizes = SIZES[sizeKey(ctx)];
  const seconds = Number(process.env.BENCH_ISOLATION_SECONDS ?? sizes.seconds);
  const only = process.env.BENCH_ISOLATION_ATTACKS?.split(',');
  const chosen = ATTACKS.filter(([key]) => !only || only.includes(key));
  const databaseUrl = await ensureDatabase('bench_isolation', { fresh: true });
  const a = tenantKey(databaseUrl, 'noisy-a');
  const b = tenantKey(databaseUrl, 'quiet-b');
  // B measures with keys of its own: enough samples for a p99 while each key stays within its limit.
  b.measureKeys = Array.from({ length: 4 }, () => tenantKey(databaseUrl, 'quiet-b').apiKey);
  if (chosen.some(([key]) => key === 'trash')) {
    ctx.progress(`isolation (${label}): ${sizes.trash.toLocaleString('en')} trashed assets for tenant A`);
    await trashMany(databaseUrl, a.tenantId, sizes.trash);
  }
  const port = await freePort();
  const server = await startProcess({
    name: `isolation-${label}`,
    bin: ctx.nodes.n24,
    args: [...profileArgs(), main, 'serve'],
    url: `http://127.0.0.1:${port}`,
    readyPath: '/readyz',
    env: {
      NODE_ENV: 'production',
      SECRETS_ENCRYPTION_KEYS: SECRETS_KEY,
      LOG_LEVEL: 'error',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      REDIS_URL: '',
      WEBHOOKS_ALLOW_INSECURE: '1',
      ...JSON.parse(process.env.BENCH_ISOLATION_ENV ?? '{}'),
    },
  });
  const rss = sampleRss(server.pid);
  try {
    const quietB = await prepareB(server.url, b.apiKey);
    const measure = () => measureB(server.url, b.measureKeys, quietB.accountId, seconds);
    const rows = [{ attack: 'quiet', ...(await measure()) }];
    for (const [index, [key, attack]] of chosen.entries()) {
      // B's quiet figures right before each attack are its baseline: a shared machine's load drifts
      // over a run of minutes, and a p99 measured at its start says little of the state ten
      // minutes later. The previous attack gets a few seconds to wind down first. (Interleaved
      // attacks measure their own quiet windows.)
      const interleaved = INTERLEAVED.has(key);
      let quiet = rows[0];
      if (index > 0 && !interleaved) {
        ctx.progress(`isolation (${label}): quiet before ${attack}`);
        await sleep(sizes.settleMs);
        quiet = await measure();
      }
      ctx.progress(`isolation (${label}): ${attack}`);
      // Each attack starts with a fresh key of A, as each would on its own (a spent window, or the
      // cost of the previous attack's large reads, would otherwise blunt the next one).
      const attackerKey = { ...a, apiKey: tenantKey(databaseUrl, 'noisy-a').apiKey };
      const attacker = attackInWorker(key, {
        url: server.url,
        a: attackerKey,
        b,
        quietB,
        sizes,
      });
      // B measures the attack, not the building of its data set (the issue: "the data set made by
      // SQL as above"): an attack that builds one through the API says when it is built.
      await attacker.built;
      await sleep(sizes.startMs); // the attack gets going before B measures
      const measured = interleaved
        ? await measureInterleaved(
            attacker,
            (ms) => sampleB(server.url, b.measureKeys, quietB.accountId, ms),
            seconds,
          )
        : { attack: await measure(), quiet };
      const outcome = await attacker.stop();
      rows.push({
        attack,
        ...measured.attack,
        ...outcome,
        quiet: { pages: measured.quiet.pages, account: measured.quiet.account },
        ...(interleaved ? { interleaved: true } : {}),
        rssMiB: rss.takeMax(),
      });
    }
    return { label, seconds, rows, rssMaxMiB: rss.max };
  } finally {
    rss.stop();
    await stopProcess(server);
  }
}

function profileArgs() {
  const dir = process.env.BENCH_ISOLATION_PROFILE;
  const extra = process.env.BENCH_ISOLATION_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  return [...extra, ...(dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [])];
}

/**
 * `count` trashed assets of tenant A (200k in a full run), inserted by SQL as the review did, with
 * their counter.
 */
async function trashMany(databaseUrl, tenantId, count) {
  const db = pgPool(databaseUrl, 1);
  try {
    await db.query(
      `INSERT INTO assets (id, tenant_id, name, data_type, file_id, lifecycle_state, created_at, updated_at, trashed_at)
       SELECT 'asset_' || md5($1 || n), $1, 'asset ' || n, 'image', 'f', 'active', now(), now(), now()
       FROM generate_series(1, $2::int) AS n`,
      [tenantId, count],
    );
    await db.query(
      `INSERT INTO tenant_counters (tenant_id, scope, count) VALUES ($1, 'assets:trash', $2)
       ON CONFLICT (tenant_id, scope) DO UPDATE SET count = EXCLUDED.count`,
      [tenantId, count],
    );
    await db.query('ANALYZE assets');
  } finally {
    await db.end();
  }
}

/** B's data: 20 pages, one account, one page with an audience for its webhook event. */
async function prepareB(url, apiKey) {
  const pages = [];
  for (let i = 0; i < 20; i += 1) pages.push(await api(url, apiKey, 'POST', '/v0/pages', pageBody(i)));
  const log = await api(url, apiKey, 'POST', '/v0/account_logs', {
    source: 'bench',
    domain: 'quiet-b.example',
    payload: { plan: 'pro' },
  });
  const audience = await api(url, apiKey, 'POST', `/v0/pages/${pages[0].pageId}/audiences`, {});
  return { accountId: log.accountId, pageId: pages[0].pageId, audienceId: audience.audienceId };
}

const pageBody = (i) => ({
  name: `page ${i}`,
  title: 'Title',
  pageContext: 'Context',
  brandId: 'brand',
  pageType: 'inbound',
});

/**
 * B's view: two sequential clients, one per endpoint, one request every 50 ms each, spread over
 * B's keys (600 a minute per key, within the default limit of 1,000), for `seconds`.
 */
async function measureB(url, apiKeys, accountId, seconds) {
  return summarize([await sampleB(url, apiKeys, accountId, seconds * 1000)]);
}

/** {@link measureB}'s requests for `ms`: each endpoint's latencies and its count of non-2xx. */
async function sampleB(url, apiKeys, accountId, ms) {
  const client = new Pool(url, { connections: 2 });
  const until = performance.now() + ms;
  let sent = 0;
  const run = async (path) => {
    const samples = [];
    let non2xx = 0;
    while (performance.now() < until) {
      const headers = { 'x-api-key': apiKeys[sent++ % apiKeys.length] };
      const t0 = performance.now();
      try {
        const res = await client.request({ method: 'GET', path, headers, headersTimeout: 30_000 });
        await res.body.dump();
        if (res.statusCode >= 300) non2xx += 1;
      } catch {
        non2xx += 1;
      }
      const took = performance.now() - t0;
      samples.push(took);
      await sleep(Math.max(0, 50 - took));
    }
    return { samples, non2xx };
  };
  const [pages, account] = await Promise.all([run('/v0/pages?limit=20'), run(`/v0/accounts/${accountId}`)]);
  await client.close();
  return { pages, account };
}

/** p50, p99, count and non-2xx of each endpoint over several sampling windows. */
function summarize(windows) {
  const endpoint = (key) => {
    const samples = windows.flatMap((w) => w[key].samples);
    const non2xx = windows.reduce((n, w) => n + w[key].non2xx, 0);
    return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99), n: samples.length, non2xx };
  };
  return { pages: endpoint('pages'), account: endpoint('account') };
}

/**
 * B's figures with A paused and with A attacking, in windows that alternate (paused first), four
 * pairs of `seconds` / 4 each (one pair when `seconds` is under 8); B samples each window after its
 * first fifth (at most a second), once the requests A had under way are cancelled or A is going
 * again. Drift of a shared machine's load then falls on both alike.
 */
async function measureInterleaved(attacker, sample, seconds) {
  const pairs = seconds >= 8 ? 4 : 1;
  const windowMs = (seconds * 1000) / pairs;
  const settleMs = Math.min(1000, windowMs / 5);
  const quiet = [];
  const attack = [];
  for (let i = 0; i < pairs; i += 1) {
    for (const [paused, into] of [
      [true, quiet],
      [false, attack],
    ]) {
      attacker.pause(paused);
      await sleep(settleMs);
      into.push(await sample(windowMs - settleMs));
    }
  }
  return { quiet: summarize(quiet), attack: summarize(attack) };
}

/** A's requests: `parallel` loops, at most `perSecond` requests a second in all (under its limit). */
async function paced({ signal, gate, parallel, perSecond, send }) {
  const statuses = {};
  const gap = (1000 * parallel) / perSecond;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (!signal.aborted) {
        await gate.open();
        if (signal.aborted) break;
        const t0 = performance.now();
        // A pause cancels what is under way ('cancelled'), as a client giving up would.
        const status = await send(gate.signal()).catch(() => (gate.paused ? 'cancelled' : 'error'));
        statuses[status] = (statuses[status] ?? 0) + 1;
        await sleep(Math.max(0, gap - (performance.now() - t0)));
      }
    }),
  );
  return statuses;
}

/**
 * Whether A's paced requests may go: `pause(true)` cancels the requests under way (their signal
 * aborts) and holds new ones until `pause(false)`; the attack's stop opens it for good.
 */
function pauseGate(stopSignal) {
  let paused = false;
  let controller = new AbortController();
  const waiters = [];
  const release = () => {
    for (const wake of waiters.splice(0)) wake();
  };
  stopSignal.addEventListener('abort', release);
  return {
    get paused() {
      return paused;
    },
    signal: () => controller.signal,
    open: () => (paused && !stopSignal.aborted ? new Promise((resolve) => waiters.push(resolve)) : undefined),
    pause(value) {
      if (value === paused) return;
      paused = value;
      if (paused) {
        controller.abort();
        controller = new AbortController();
      } else release();
    },
  };
}

async function request(url, apiKey, method, path, body, signal) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'x-api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
    body,
    signal,
  });
  await res.arrayBuffer();
  return res.status;
}

/** Attack 1: eight searches in flight whose pattern has no letters (`%` × 200). */
async function trashSearch({ url, a, signal, gate }) {
  const path = `/v0/assets/trash?limit=100&query=${'%25'.repeat(200)}`;
  const statuses = await paced({
    signal,
    gate,
    parallel: 8,
    perSecond: 12,
    send: (cancel) => request(url, a.apiKey, 'GET', path, undefined, cancel),
  });
  return { attacker: statuses };
}

/**
 * Attack 2: A fills an audience's history with the largest messages the server takes (from
 * 1 MiB down, halving on 400) up to `sizes.messages` of them (150 in a full run), says the data
 * set is `built`, then reads the history 16 at a time.
 */
async function messageHistories({ url, a, signal, gate, sizes, built }) {
  const page = await api(url, a.apiKey, 'POST', '/v0/pages', pageBody(0));
  const audience = await api(url, a.apiKey, 'POST', `/v0/pages/${page.pageId}/audiences`, {});
  const path = `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/messages`;
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
}

/**
 * Attack 5: A posts message bodies of 1 MiB (the most any route reads), four at a time, eight a
 * second: more than any valid message, so every one is refused with 400. Before each route's body
 * limit followed from its bounds, the server read and parsed each of them first.
 */
async function oversizedBodies({ url, a, signal, gate }) {
  const page = await api(url, a.apiKey, 'POST', '/v0/pages', pageBody(0));
  const audience = await api(url, a.apiKey, 'POST', `/v0/pages/${page.pageId}/audiences`, {});
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
}

/** A receiver that answers every delivery after `delayMs`, counting them. */
async function receiver(delayMs) {
  const port = await freePort();
  const received = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ at: Date.now(), body });
      setTimeout(() => res.end('ok'), delayMs);
    });
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    // Deliveries keep coming while the dispatcher works through its backlog: cut them off.
    close: () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      }),
  };
}

/**
 * Attack 3 (full sizes; smaller in a smoke run): A asks for 300 subscriptions to a receiver
 * answering after 9 s and creates versions (each fans out to all of them); 2 s later B, subscribed
 * to a prompt receiver, creates one version: how long from B's commit to its delivery?
 */
async function slowReceivers({ url, a, b, quietB, signal, sizes }) {
  const slow = await receiver(sizes.slowMs);
  const fast = await receiver(0);
  try {
    const subscriptions = {};
    for (let i = 0; i < sizes.subscriptions; i += 1) {
      const body = JSON.stringify({ url: slow.url });
      const status = await request(url, a.apiKey, 'POST', '/v0/webhook_subscriptions', body);
      subscriptions[status] = (subscriptions[status] ?? 0) + 1;
    }
    await api(url, b.apiKey, 'POST', '/v0/webhook_subscriptions', { url: fast.url });
    const page = await api(url, a.apiKey, 'POST', '/v0/pages', pageBody(1));
    const audience = await api(url, a.apiKey, 'POST', `/v0/pages/${page.pageId}/audiences`, {});
    for (let i = 0; i < 5; i += 1) {
      await api(
        url,
        a.apiKey,
        'POST',
        `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/versions`,
        {},
      );
    }
    await sleep(sizes.bAfterMs);
    // Taken before the request: an upper bound of commit-to-receipt.
    const committed = Date.now();
    await api(
      url,
      b.apiKey,
      'POST',
      `/v0/pages/${quietB.pageId}/audiences/${quietB.audienceId}/versions`,
      {},
    );
    while (fast.received.length === 0 && Date.now() - committed < MAX_WAIT_MS) await sleep(50);
    // Not delivered within the wait: reported as the wait (a lower bound).
    const deliveredAfterMs = fast.received[0] ? fast.received[0].at - committed : MAX_WAIT_MS;
    while (!signal.aborted) await sleep(100);
    return { subscriptions, aDeliveriesStarted: slow.received.length, bDeliveredAfterMs: deliveredAfterMs };
  } finally {
    await slow.close();
    await fast.close();
  }
}

/** Attack 4: 10,000 idle keyless connections (full run) and 50 bodies trickled a byte a second. */
async function connections({ url, signal, sizes }) {
  const { port } = new URL(url);
  const sockets = [];
  let closedByServer = 0;
  const open = (onConnect) => {
    const socket = connect(Number(port), '127.0.0.1', onConnect);
    socket.on('error', () => {});
    socket.resume(); // a paused socket never sees the server's close
    socket.on('close', () => {
      if (!signal.aborted) closedByServer += 1;
    });
    sockets.push(socket);
    return socket;
  };
  const idle = sizes.idle;
  for (let i = 0; i < idle; i += 1) {
    open(() => {});
    if (i % 500 === 499) await sleep(10);
  }
  const timers = [];
  for (let i = 0; i < 50; i += 1) {
    const socket = open(() =>
      socket.write(
        'POST /v0/account_logs HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{',
      ),
    );
    timers.push(setInterval(() => socket.writable && socket.write(' '), 1000));
  }
  while (!signal.aborted) await sleep(100);
  for (const timer of timers) clearInterval(timer);
  const stillOpen = sockets.filter((s) => !s.destroyed).length;
  for (const socket of sockets) socket.destroy();
  return { attacker: { opened: sockets.length, closedByServer, stillOpen } };
}

/**
 * Runs attack `key` in a worker thread: A is another client, so its handling of megabytes of
 * responses must not delay B's measuring loop (they would share one event loop otherwise).
 * `built` resolves once the attack's data set is built (at once for attacks without one); `stop()`
 * ends the attack and resolves with its outcome.
 */
function attackInWorker(key, data) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { attack: key, ...data } });
  let markBuilt;
  const built = new Promise((resolve) => {
    markBuilt = resolve;
  });
  const outcome = new Promise((resolve, reject) => {
    worker.on('message', (message) => {
      markBuilt(); // built, or over before it was (a failure shows in the result)
      if (!message.built) resolve(message.result);
    });
    worker.once('error', (error) => {
      markBuilt();
      reject(error);
    });
  });
  return {
    built,
    /** Pauses A's paced requests (cancelling those under way), or lets them go on. */
    pause: (paused) => worker.postMessage(paused ? 'pause' : 'resume'),
    stop: async () => {
      worker.postMessage('stop');
      const result = await outcome;
      await worker.terminate();
      return result;
    },
  };
}

if (!isMainThread && workerData?.attack) {
  const stop = new AbortController();
  const gate = pauseGate(stop.signal);
  parentPort.on('message', (message) => {
    if (message === 'stop') stop.abort();
    else gate.pause(message === 'pause');
  });
  const [, , run] = ATTACKS.find(([key]) => key === workerData.attack);
  const built = () => parentPort.postMessage({ built: true });
  // Attacks without a data set of their own are built at once.
  if (run !== messageHistories) built();
  parentPort.postMessage({ result: await run({ ...workerData, signal: stop.signal, gate, built }) });
}

/** Samples the server's RSS every 250 ms; `takeMax` returns and resets the max since last call. */
function sampleRss(pid) {
  const state = { max: 0, window: 0 };
  const timer = setInterval(() => {
    try {
      const mib = rssMiB(pid);
      state.max = Math.max(state.max, mib);
      state.window = Math.max(state.window, mib);
    } catch {}
  }, 250);
  return {
    get max() {
      return state.max;
    },
    takeMax: () => {
      const value = state.window;
      state.window = 0;
      return value;
    },
    stop: () => clearInterval(timer),
  };
}
