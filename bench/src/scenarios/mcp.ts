// Scenario 5: the `list_pages` tool over stdio (the MCP server on Node 24 as a child process)
// against the same call made directly with @customer-api/client, once per protocol era: a 2025
// connection (`initialize`, then calls) and a 2026-07-28 one (no handshake, `_meta` on every
// request). Both are driven with raw JSON-RPC lines, so the figure is the server's own overhead
// and not a client library's. Calls alternate, one at a time, so all see the same noise.
// Then 1,000 sequential stateless calls over Streamable HTTP (a fresh MCP server per request; 100
// in a smoke run), sampling the MCP server's heap after garbage collection: it must stay flat.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { createClient } from '@customer-api/client';
import { request } from 'undici';
import type { BenchContext, SharedContext } from '../context.js';
import { MCP_MAIN, ROOT, type ServerHandle } from '../lib/proc.js';
import { percentile, spread } from '../lib/stats.js';
import type { McpEra, McpMemorySample, McpResult, Spread } from '../results.js';

/** The environment of the MCP server: the API's address and key, and its confirmation secret. */
interface McpEnv {
  CUSTOMER_API_BASE_URL: string;
  CUSTOMER_API_KEY: string;
  MCP_CONFIRM_SECRET: string;
}

/** A JSON-RPC answer. */
interface RpcAnswer {
  id?: number;
  result?: unknown;
  error?: { message: string };
}

/** The MCP package's entry point, imported by the memory child. */
const MCP_INDEX = `${ROOT}apps/mcp/dist/index.js`;

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '0.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** The MCP server over stdio, spoken to one JSON-RPC line at a time. */
function stdioServer(ctx: BenchContext, env: McpEnv) {
  const child = spawn(ctx.nodes.n24, [MCP_MAIN, '--log-level', 'error'], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const waiting = new Map<number | undefined, (answer: RpcAnswer) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as RpcAnswer;
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  });
  let id = 0;
  const request = (method: string, params: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      id += 1;
      waiting.set(id, (m) =>
        m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result),
      );
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  const notify = (method: string) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  const close = () =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.stdin.end();
    });
  return { request, notify, close };
}

/** A `list_pages` caller for one era; the 2025 one opens with the `initialize` handshake. */
async function openEra(ctx: BenchContext, env: McpEnv, era: string) {
  const server = stdioServer(ctx, env);
  const args = { name: 'list_pages', arguments: { limit: 20 } };
  let params: typeof args & { _meta?: typeof MODERN_META } = { ...args, _meta: MODERN_META };
  if (era === '2025') {
    const init = {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'bench', version: '0' },
    };
    await server.request('initialize', init);
    server.notify('notifications/initialized');
    params = args;
  }
  const call = async () => {
    const result = (await server.request('tools/call', params)) as { isError?: boolean; content?: unknown };
    if (result.isError) throw new Error(`list_pages failed: ${JSON.stringify(result.content).slice(0, 300)}`);
  };
  return { call, close: server.close };
}

/** Per-call p50/p99 of each era next to the direct client, `calls` of each per round. */
/** p50 and p99 of a path in one round. */
type Round = Record<string, [number, number]>;

async function overheads(
  ctx: BenchContext,
  env: McpEnv,
  direct: ReturnType<typeof createClient>,
  calls: number,
  warmUp: number,
) {
  const eras = { 2025: await openEra(ctx, env, '2025'), '2026-07-28': await openEra(ctx, env, '2026-07-28') };
  const plain = () => direct.listPages({ query: { limit: 20 } });
  // The client's own cost: the same GET with undici.request, its body parsed as JSON.
  const pagesUrl = `${env.CUSTOMER_API_BASE_URL}/v0/pages?limit=20`;
  const raw = async () => {
    const res = await request(pagesUrl, { headers: { 'x-api-key': env.CUSTOMER_API_KEY } });
    const body = await res.body.json();
    if (res.statusCode !== 200) throw new Error(`raw listPages: ${res.statusCode}`);
    return body;
  };
  const rounds: Round[] = [];
  try {
    for (let i = 0; i < warmUp; i += 1)
      await Promise.all([eras[2025].call(), eras['2026-07-28'].call(), plain(), raw()]);
    for (let r = 0; r < ctx.reps; r += 1) {
      const samples: Record<'2025' | '2026-07-28' | 'client' | 'raw' | 'ownClient', number[]> = {
        2025: [],
        '2026-07-28': [],
        client: [],
        raw: [],
        ownClient: [],
      };
      for (let i = 0; i < calls; i += 1) {
        samples[2025].push(await timed(eras[2025].call));
        samples['2026-07-28'].push(await timed(eras['2026-07-28'].call));
        samples.client.push(await timed(plain));
      }
      // The client's own cost in a loop of its own: right after an MCP call, the MCP process is
      // still writing its result on the same two cores, which the next call would pay for. Each
      // pair alternates which goes first, so neither side always follows the other.
      for (let i = 0; i < calls; i += 1) {
        const [one, other] = i % 2 === 0 ? [plain, raw] : [raw, plain];
        const first = await timed(one);
        const second = await timed(other);
        samples.ownClient.push(i % 2 === 0 ? first : second);
        samples.raw.push(i % 2 === 0 ? second : first);
      }
      const round: Round = {};
      for (const [name, s] of Object.entries(samples))
        round[name] = [percentile(s, 0.5), percentile(s, 0.99)];
      rounds.push(round);
      ctx.progress(`mcp round ${r + 1}/${ctx.reps}`);
    }
  } finally {
    await Promise.all(Object.values(eras).map((e) => e.close()));
  }
  const at = (r: Round, name: string, i: 0 | 1) => r[name]?.[i] ?? Number.NaN;
  const of = (name: string, i: 0 | 1): Spread => spread(rounds.map((r) => at(r, name, i)));
  const era = (name: string): McpEra => ({
    p50: of(name, 0),
    p99: of(name, 1),
    overhead50: spread(rounds.map((r) => at(r, name, 0) - at(r, 'client', 0))),
  });
  return {
    client50: of('client', 0),
    client99: of('client', 1),
    ownClient50: of('ownClient', 0),
    ownClient99: of('ownClient', 1),
    raw50: of('raw', 0),
    raw99: of('raw', 1),
    clientCost50: spread(rounds.map((r) => at(r, 'ownClient', 0) - at(r, 'raw', 0))),
    eras: { 2025: era('2025'), '2026-07-28': era('2026-07-28') },
  };
}

// The MCP HTTP server in a child of its own with --expose-gc: on each message it collects garbage
// and reports its heap, so the samples show what the server keeps, not what V8 has yet to free.
const MEMORY_CHILD = `
const { startHttpServer } = await import(process.argv[1]);
const http = await startHttpServer({ baseUrl: process.argv[2], port: 0, host: '127.0.0.1' });
process.on('message', (m) => {
  if (m === 'stop') return void http.close().then(() => process.exit(0));
  globalThis.gc();
  globalThis.gc();
  const { heapUsed, rss } = process.memoryUsage();
  process.send({ heapMiB: heapUsed / 1048576, rssMiB: rss / 1048576 });
});
process.send({ url: http.url });
`;

/** `total` sequential 2026-07-28 calls over HTTP; the server's heap (after GC) every tenth of them. */
async function statelessMemory(
  ctx: BenchContext,
  env: McpEnv,
  apiKey: string,
  total: number,
): Promise<McpResult['statelessMemory']> {
  const every = total / 10;
  const child = spawn(
    ctx.nodes.n24,
    ['--expose-gc', '--input-type=module', '-e', MEMORY_CHILD, MCP_INDEX, env.CUSTOMER_API_BASE_URL],
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    },
  );
  const next = <T>() => new Promise<T>((resolve) => child.once('message', (m) => resolve(m as T)));
  const { url } = await next<{ url: string }>();
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'x-api-key': apiKey,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'list_pages',
  };
  const body = (id: number) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'list_pages', arguments: { limit: 20 }, _meta: MODERN_META },
    });
  const samples: McpMemorySample[] = [];
  try {
    for (let i = 0; i <= total; i += 1) {
      if (i % every === 0) {
        child.send('sample');
        samples.push({ calls: i, ...(await next<Omit<McpMemorySample, 'calls'>>()) });
      }
      if (i === total) break;
      const res = await fetch(url, { method: 'POST', headers, body: body(i + 1) });
      if (!res.ok) throw new Error(`HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
      await res.text();
    }
  } finally {
    child.send('stop');
  }
  // Growth from the first tenth on: the first calls include JIT warm-up and lazily loaded modules.
  const none = { calls: 0, heapMiB: Number.NaN, rssMiB: Number.NaN };
  const warm = samples.find((s) => s.calls === every) ?? none;
  const last = samples.at(-1) ?? none;
  return {
    samples,
    heapGrowthAfterWarmUpMiB: last.heapMiB - warm.heapMiB,
    rssGrowthAfterWarmUpMiB: last.rssMiB - warm.rssMiB,
  };
}

/** Runs scenario 5 against our Node 24 server. */
export async function runMcp(ctx: SharedContext, server: ServerHandle): Promise<McpResult> {
  const { apiKey } = ctx.pages;
  const env = {
    CUSTOMER_API_BASE_URL: server.url,
    CUSTOMER_API_KEY: apiKey,
    MCP_CONFIRM_SECRET: 'b'.repeat(32),
  };
  const direct = createClient({ baseUrl: server.url, apiKey });
  const calls = ctx.smoke ? 30 : ctx.quick ? 100 : 400;
  const measured = await overheads(ctx, env, direct, calls, ctx.smoke ? 5 : 20);
  const memory = await statelessMemory(ctx, env, apiKey, ctx.smoke ? 100 : 1000);
  const legacy = measured.eras[2025];
  // mcp50/mcp99/overhead50: the 2025 stdio path, as reported before the 2026-07-28 revision.
  return {
    calls,
    mcp50: legacy.p50,
    mcp99: legacy.p99,
    client50: measured.client50,
    client99: measured.client99,
    ownClient50: measured.ownClient50,
    ownClient99: measured.ownClient99,
    raw50: measured.raw50,
    raw99: measured.raw99,
    clientCost50: measured.clientCost50,
    overhead50: legacy.overhead50,
    eras: measured.eras,
    statelessMemory: memory,
  };
}
