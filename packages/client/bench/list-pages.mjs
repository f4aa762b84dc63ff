// The client's own cost, without a database: `client.listPages({ query: { limit: 20 } })` against
// the same GET made with `undici.request` and `JSON.parse`, one at a time, against a node:http
// server (in a child process) answering a canned page of 20 items. Not part of the tests.
//
//   node bench/list-pages.mjs [--iterations=5000] [--only=client|raw] [--entry=node|web] [--dist=DIR]
//   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/list-pages.mjs --only=client
//
// Runs on the built package (dist/): build first. `--entry=web` measures the fetch build
// (dist/index.web.js, Node's global fetch) instead of the Node one; `--dist` another build's
// dist/ directory (e.g. a copy of the one before a change, for a before/after comparison).
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { Agent, request } from 'undici';

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, '').split('=');
    return [key, value ?? 'true'];
  }),
);

if (args.server) {
  const page = (i) => ({
    pageId: `page_01m85wydkwe8g8cc11wmckh${String(i).padStart(3, '0')}`,
    name: `Spring launch ${i}`,
    title: 'Acme for freight',
    // About 1 KB per page, as the pages the repository's bench seeds (bench/src/scenarios/overhead.ts).
    pageContext: 'Freight forwarders looking for a faster customs broker. '.repeat(8),
    brandId: 'brand_acme',
    audiencesCount: i,
    actions: [
      {
        actionId: `action_${i}`,
        actionIndex: 0,
        purpose: 'book a call',
        buttonTitle: 'Book a call',
        actionType: 'link',
        url: 'https://example.com/book',
      },
    ],
    actionCardWidgets: [],
    footerLinks: [],
    scripts: [],
    createdAt: '2026-11-24T04:27:38.989Z',
    updatedAt: '2026-11-24T04:27:38.989Z',
    archivedAt: null,
    deletedAt: null,
    pageType: 'inbound',
    status: 'draft',
  });
  const body = Buffer.from(
    JSON.stringify({
      items: Array.from({ length: 20 }, (_, i) => page(i)),
      hasMore: true,
      nextCursor: 'eyJrIjoicGFnZV8wMW04NXd5ZGt3ZThnOGNjMTF3bWNraDAxOSJ9',
      totalCount: 1000,
    }),
  );
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      n += 1;
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': body.length,
        'x-request-id': `req_01m85wydkwe8g8cc11w${String(n).padStart(6, '0')}`,
        'ratelimit-limit': '100000',
        'ratelimit-remaining': '99999',
        'ratelimit-reset': '60',
        'x-ratelimit-limit': '100000',
        'x-ratelimit-remaining': '99999',
        'x-ratelimit-reset': '60',
        'cache-control': 'no-store',
      });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port, bytes: body.length }));
  process.on('message', () => server.close(() => process.exit(0)));
} else {
  await main();
}

async function main() {
  const iterations = Number(args.iterations ?? 5000);
  const child = fork(new URL(import.meta.url).pathname, ['--server'], { stdio: 'inherit' });
  const [{ port, bytes }] = await once(child, 'message');
  const baseUrl = `http://127.0.0.1:${port}`;
  const dist = args.dist ? pathToFileURL(`${args.dist}/`) : new URL('../dist/', import.meta.url);
  const entry = args.entry === 'web' ? 'index.web.js' : 'index.js';
  const { createClient } = await import(new URL(entry, dist).href);
  const client = createClient({ baseUrl, apiKey: 'bench-key' });
  const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
  const url = `${baseUrl}/v0/pages?limit=20`;
  const raw = async () => {
    const res = await request(url, { headers: { 'x-api-key': 'bench-key' }, dispatcher });
    const body = await res.body.json();
    if (res.statusCode !== 200) throw new Error(`raw: ${res.statusCode}`);
    return body;
  };
  const viaClient = async () => {
    const page = await client.listPages({ query: { limit: 20 } });
    if (page.items.length !== 20) throw new Error('client: short page');
    return page;
  };
  const runners = { client: viaClient, raw };
  const names = args.only ? [args.only] : ['client', 'raw'];
  for (let i = 0; i < 500; i += 1) for (const name of names) await runners[name]();
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  const started = performance.now();
  for (let i = 0; i < iterations; i += 1) {
    for (const name of names) {
      const t0 = performance.now();
      await runners[name]();
      samples[name].push(performance.now() - t0);
    }
  }
  const elapsed = performance.now() - started;
  // CPU time of this process per call, each kind in a loop of its own: steadier than latency
  // on a loaded machine, and it is the client's own cost (the server runs in the child).
  const cpu = {};
  for (const name of names) {
    const before = process.cpuUsage();
    for (let i = 0; i < iterations; i += 1) await runners[name]();
    const used = process.cpuUsage(before);
    cpu[name] = { total: (used.user + used.system) / 1000 / iterations, user: used.user / 1000 / iterations };
  }
  const pct = (s, p) => {
    const sorted = [...s].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  };
  const row = (name) => ({
    p50: pct(samples[name], 0.5),
    p99: pct(samples[name], 0.99),
    mean: samples[name].reduce((a, b) => a + b, 0) / samples[name].length,
  });
  const fmt = (ms) => `${(ms * 1000).toFixed(0).padStart(5)} µs`;
  console.log(
    `${iterations} iterations, ${args.entry === 'web' ? 'web (fetch)' : 'node'} entry, body ${bytes} bytes, ${elapsed.toFixed(0)} ms`,
  );
  const rows = Object.fromEntries(names.map((name) => [name, row(name)]));
  for (const [name, r] of Object.entries(rows))
    console.log(
      `${name.padEnd(7)} p50 ${fmt(r.p50)}  p99 ${fmt(r.p99)}  mean ${fmt(r.mean)}  cpu/call ${fmt(cpu[name].total)} (user ${fmt(cpu[name].user)})`,
    );
  if (rows.client && rows.raw) {
    console.log(
      `client - raw: p50 ${fmt(rows.client.p50 - rows.raw.p50)}  p99 ${fmt(rows.client.p99 - rows.raw.p99)}  mean ${fmt(rows.client.mean - rows.raw.mean)}  cpu/call ${fmt(cpu.client.total - cpu.raw.total)} (user ${fmt(cpu.client.user - cpu.raw.user)})`,
    );
  }
  await client.close();
  await dispatcher.close();
  child.send('stop');
  await once(child, 'exit');
}
