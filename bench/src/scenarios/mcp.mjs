// Scenario 5: the `list_pages` tool over stdio (the MCP server on Node 24 as a child process,
// driven by the SDK's client) against the same call made directly with @customer-api/client.
// Calls alternate, one at a time, so both see the same server and the same noise.
import { performance } from 'node:perf_hooks';
import { createClient } from '@customer-api/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { MCP_MAIN } from '../lib/proc.mjs';
import { percentile, spread } from '../lib/stats.mjs';

async function timed(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** Runs scenario 5 against our Node 24 server. */
export async function runMcp(ctx, server) {
  const { apiKey } = ctx.pages;
  const direct = createClient({ baseUrl: server.url, apiKey });
  const transport = new StdioClientTransport({
    command: ctx.nodes.n24,
    args: [MCP_MAIN],
    env: { ...process.env, CUSTOMER_API_BASE_URL: server.url, CUSTOMER_API_KEY: apiKey, LOG_LEVEL: 'error' },
    stderr: 'ignore',
  });
  const mcp = new Client({ name: 'bench', version: '0.0.0' });
  await mcp.connect(transport);
  const calls = ctx.quick ? 100 : 400;
  const rounds = [];
  try {
    const tool = async () => {
      const result = await mcp.callTool({ name: 'list_pages', arguments: { limit: 20 } });
      if (result.isError)
        throw new Error(`list_pages failed: ${JSON.stringify(result.content).slice(0, 300)}`);
    };
    const plain = () => direct.listPages({ query: { limit: 20 } });
    for (let i = 0; i < 20; i += 1) await Promise.all([tool(), plain()]); // warm-up
    for (let r = 0; r < ctx.reps; r += 1) {
      const viaMcp = [];
      const viaClient = [];
      for (let i = 0; i < calls; i += 1) {
        viaMcp.push(await timed(tool));
        viaClient.push(await timed(plain));
      }
      rounds.push({
        mcp50: percentile(viaMcp, 0.5),
        mcp99: percentile(viaMcp, 0.99),
        client50: percentile(viaClient, 0.5),
        client99: percentile(viaClient, 0.99),
      });
      ctx.progress(`mcp round ${r + 1}/${ctx.reps}`);
    }
  } finally {
    await mcp.close();
  }
  return {
    calls,
    mcp50: spread(rounds.map((r) => r.mcp50)),
    mcp99: spread(rounds.map((r) => r.mcp99)),
    client50: spread(rounds.map((r) => r.client50)),
    client99: spread(rounds.map((r) => r.client99)),
    overhead50: spread(rounds.map((r) => r.mcp50 - r.client50)),
  };
}
