// Scenario 11: what conditional requests cost and buy (issue 49). (a) p50/p99 of getPage and
// getAudienceMessages read whole (200, the ETag computed) and answered 304 (If-None-Match with the
// tag), interleaved on one connection; (b) requests per second from 16 connections reading one page
// whole and reading it with its tag (304s); (c) what computing a tag costs: a SHA-256 of a body of
// the same size, in this process.
import { createHash } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import type { BenchContext } from '../context.js';
import { ensureDatabase, tenantKey } from '../lib/db.js';
import { startOurs } from '../lib/ours.js';
import { stopProcess } from '../lib/proc.js';
import { percentile } from '../lib/stats.js';
import type { Table } from '../markdown.js';
import type { ConditionalLatency, ConditionalResult } from '../results.js';

const CONNECTIONS = 16;
const PAGE = {
  name: 'Bench',
  title: 'Conditional reads',
  pageContext: 'x'.repeat(1500),
  brandId: 'brand_bench',
  pageType: 'inbound',
};

async function send(
  http: Pool,
  apiKey: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; etag: string | undefined; text: string }> {
  const res = await http.request({
    method,
    path,
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json', ...headers },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.body.text();
  const { etag } = res.headers;
  return { status: res.statusCode, etag: typeof etag === 'string' ? etag : undefined, text };
}

async function timed(
  http: Pool,
  apiKey: string,
  path: string,
  headers: Record<string, string>,
  expected: number,
): Promise<number> {
  const t0 = performance.now();
  const res = await http.request({ method: 'GET', path, headers: { 'x-api-key': apiKey, ...headers } });
  await res.body.dump();
  const ms = performance.now() - t0;
  if (res.statusCode !== expected) throw new Error(`${path}: ${res.statusCode}, expected ${expected}`);
  return ms;
}

/** p50/p99 of a whole read and of a 304, alternating request by request on one connection. */
async function latencies(
  http: Pool,
  apiKey: string,
  path: string,
  etag: string,
  samples: number,
  warmUp: number,
): Promise<Omit<ConditionalLatency, 'bytes'>> {
  for (let i = 0; i < warmUp; i += 1) {
    await timed(http, apiKey, path, {}, 200);
    await timed(http, apiKey, path, { 'if-none-match': etag }, 304);
  }
  const whole = [];
  const notModified = [];
  for (let i = 0; i < samples; i += 1) {
    whole.push(await timed(http, apiKey, path, {}, 200));
    notModified.push(await timed(http, apiKey, path, { 'if-none-match': etag }, 304));
  }
  return {
    samples,
    p50: { whole: percentile(whole, 0.5), notModified: percentile(notModified, 0.5) },
    p99: { whole: percentile(whole, 0.99), notModified: percentile(notModified, 0.99) },
  };
}

/** Requests per second from {@link CONNECTIONS} connections for `seconds`. */
async function rate(
  url: string,
  apiKey: string,
  path: string,
  headers: Record<string, string>,
  expected: number,
  seconds: number,
): Promise<number> {
  const http = new Pool(url, { connections: CONNECTIONS });
  const end = performance.now() + seconds * 1000;
  let done = 0;
  try {
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < end) {
          await timed(http, apiKey, path, headers, expected);
          done += 1;
        }
      }),
    );
  } finally {
    await http.close();
  }
  return done / seconds;
}

/** Microseconds per SHA-256 of `bytes` bytes (what a tag costs beyond serialising the body). */
function hashMicros(bytes: number, rounds: number): number {
  const body = Buffer.alloc(bytes, 'a');
  const t0 = performance.now();
  for (let i = 0; i < rounds; i += 1) createHash('sha256').update(body).digest('base64url');
  return ((performance.now() - t0) * 1000) / rounds;
}

/** Runs scenario 11 against its own database and server process (PostgreSQL, Node 24). */
export async function runConditional(ctx: BenchContext): Promise<ConditionalResult> {
  const samples = Number(process.env.BENCH_CONDITIONAL_SAMPLES ?? (ctx.smoke ? 50 : ctx.quick ? 300 : 2000));
  const seconds = ctx.smoke ? 1 : ctx.quick ? 2 : 8;
  const rounds = ctx.smoke || ctx.quick ? 1 : 3;
  const loadAtStart = os
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(' / ');
  const databaseUrl = await ensureDatabase('bench_conditional', { fresh: true });
  const { apiKey } = tenantKey(databaseUrl, 'bench-conditional');
  const server = await startOurs({ name: 'ours-24-conditional', bin: ctx.nodes.n24, databaseUrl });
  const http = new Pool(server.url, { connections: 1 });
  try {
    const page = JSON.parse((await send(http, apiKey, 'POST', '/v0/pages', PAGE)).text) as { pageId: string };
    const pagePath = `/v0/pages/${page.pageId}`;
    const audience = JSON.parse((await send(http, apiKey, 'POST', `${pagePath}/audiences`, {})).text) as {
      audienceId: string;
    };
    const historyPath = `${pagePath}/audiences/${audience.audienceId}/messages`;
    for (let i = 0; i < 40; i += 1)
      await send(http, apiKey, 'POST', historyPath, {
        role: i % 2 ? 'assistant' : 'user',
        content: 'y'.repeat(4000),
      });
    const pageRead = await send(http, apiKey, 'GET', pagePath);
    const historyRead = await send(http, apiKey, 'GET', historyPath);
    const latency = {
      getPage: {
        bytes: pageRead.text.length,
        ...(await latencies(http, apiKey, pagePath, pageRead.etag ?? '', samples, 100)),
      },
      getAudienceMessages: {
        bytes: historyRead.text.length,
        ...(await latencies(http, apiKey, historyPath, historyRead.etag ?? '', Math.ceil(samples / 4), 25)),
      },
    };
    ctx.progress('conditional: latency done');
    const throughput = [];
    for (let round = 0; round < rounds; round += 1) {
      const whole = await rate(server.url, apiKey, pagePath, {}, 200, seconds);
      const notModified = await rate(
        server.url,
        apiKey,
        pagePath,
        { 'if-none-match': pageRead.etag ?? '' },
        304,
        seconds,
      );
      throughput.push({ whole, notModified });
    }
    const hash = {
      pageMicros: hashMicros(pageRead.text.length, 20_000),
      historyMicros: hashMicros(historyRead.text.length, 2_000),
      maxHistoryMicros: hashMicros(4 * 1024 * 1024, ctx.smoke ? 5 : 50),
    };
    return { loadAtStart, connections: CONNECTIONS, loadSeconds: seconds, latency, throughput, hash };
  } finally {
    await http.close();
    await stopProcess(server);
  }
}

const ms = (v: number) => v.toFixed(2);
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** The report's section of scenario 11. */
export function renderConditional(r: ConditionalResult, table: Table): string {
  const rows = Object.entries(r.latency).map(([name, l]) => [
    `\`${name}\``,
    l.bytes.toLocaleString('en-US'),
    ms(l.p50.whole),
    ms(l.p50.notModified),
    ms(l.p99.whole),
    ms(l.p99.notModified),
  ]);
  const whole = median(r.throughput.map((t) => t.whole));
  const notModified = median(r.throughput.map((t) => t.notModified));
  return [
    '## 11. Conditional requests: ETag and If-None-Match',
    '',
    `Sequential requests on one connection against a server on PostgreSQL, alternating a whole read (200, its \`ETag\` computed) and the same read with that tag in \`If-None-Match\` (304, no body), in ms. Load average when the scenario started: ${r.loadAtStart}.`,
    '',
    table(['Operation', 'body bytes', 'p50 200', 'p50 304', 'p99 200', 'p99 304'], rows),
    '',
    `One page read by ${r.connections} connections for ${r.loadSeconds} s, ${r.throughput.length} rounds (median): ${Math.round(whole)} whole reads/s against ${Math.round(notModified)} 304s/s (${(notModified / whole).toFixed(2)} ×). A 304 still authenticates, reads and hashes the page; it saves serialising and sending the body, and its rate-limit point.`,
    '',
    `What a tag costs: a SHA-256 of the page's ${r.latency.getPage.bytes.toLocaleString('en-US')} bytes takes ${r.hash.pageMicros.toFixed(1)} µs here, of the ${r.latency.getAudienceMessages.bytes.toLocaleString('en-US')}-byte history ${r.hash.historyMicros.toFixed(0)} µs, of a 4 MiB history (the largest) ${(r.hash.maxHistoryMicros / 1000).toFixed(2)} ms. Against the whole read's p50 above, the page's tag is ${((100 * r.hash.pageMicros) / (r.latency.getPage.p50.whole * 1000)).toFixed(1)} % and the history's ${((100 * r.hash.historyMicros) / (r.latency.getAudienceMessages.p50.whole * 1000)).toFixed(1)} % of the time, well under the spread between the rounds of any read figure in this report.`,
    ...(r.note ? ['', r.note] : []),
  ].join('\n');
}
