import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { JSON_OPERATION_NAMES } from '@customer-api/contract';
import { describe, expect, inject, it } from 'vitest';
import { useHttpServer } from './test/http-server.js';
import { MAIN } from './test/sessions.js';

const api = inject('api');
const run = promisify(execFile);

/** The 2.x inspector (`mcp-inspector`; `--cli` selects its CLI) runs on Node 22.19 and later. */
const NEEDS = [22, 19] as const;
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const supported = major > NEEDS[0] || (major === NEEDS[0] && minor >= NEEDS[1]);
const LAUNCHER = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector/package.json')),
  'clients/launcher/build/index.js',
);

// The reporter lists a skipped file without its tests' names: say why here, once.
if (!supported)
  console.info(
    `2.x MCP inspector --strict not run: it needs Node >= ${NEEDS.join('.')}, this is ${process.version}`,
  );

interface Finding {
  toolName: string;
  findings: { rule: string; severity: 'error' | 'warning'; path: string }[];
}

/** `mcp-inspector --cli <target> --method tools/list --strict --format json`: the list and what the lint found. */
async function strictList(
  target: string[],
): Promise<{ tools: { name: string }[]; findings: Finding[]; stderr: string }> {
  const { stdout, stderr } = await run(
    process.execPath,
    [LAUNCHER, '--cli', ...target, '--method', 'tools/list', '--strict', '--format', 'json'],
    { timeout: 90_000 },
  );
  const { result, schemaFindings } = JSON.parse(stdout) as {
    result: { tools: { name: string }[] };
    schemaFindings?: Finding[];
  };
  return { tools: result.tools, findings: schemaFindings ?? [], stderr };
}

/** A stand-in MCP server over HTTP listing one tool whose nullable property is written as a `type` array. */
async function unportableServer(): Promise<Server> {
  const tool = {
    name: 'nullable_as_type_array',
    description: 'A tool written the way the first strict inspector run found 62 warnings.',
    inputSchema: {
      type: 'object',
      properties: { since: { type: ['string', 'null'], description: 'Since' } },
    },
  };
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const message = JSON.parse(body) as {
      id?: number;
      method: string;
      params?: { protocolVersion?: string };
    };
    if (message.id === undefined) return void res.writeHead(202).end();
    const result =
      message.method === 'initialize'
        ? {
            protocolVersion: message.params?.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: 'unportable', version: '1.0.0' },
          }
        : { tools: [tool] };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

describe.skipIf(!supported)(
  `the 2.x MCP inspector --strict (skipped: it needs Node >= ${NEEDS.join('.')}, this is ${process.version})`,
  () => {
    const http = useHttpServer();

    it('reports a nullable written as a type array (the check this suite relies on finds problems)', async () => {
      const server = await unportableServer();
      try {
        const { port } = server.address() as AddressInfo;
        const { findings, stderr } = await strictList([`http://127.0.0.1:${port}/mcp`]);
        expect(findings).toEqual([
          {
            toolName: 'nullable_as_type_array',
            findings: [expect.objectContaining({ rule: 'type-union', severity: 'warning' })],
          },
        ]);
        expect(stderr).toContain('0 errors, 1 warning across 1 tool.');
      } finally {
        server.close();
      }
    });

    it('finds 0 errors and 0 warnings in every tool over stdio', async () => {
      const { tools, findings, stderr } = await strictList([
        process.execPath,
        MAIN,
        '-e',
        `CUSTOMER_API_KEY=${api.apiKey}`,
        '-e',
        `CUSTOMER_API_BASE_URL=${api.baseUrl}`,
        '-e',
        'MCP_TOOLSETS=all',
      ]);
      expect(tools).toHaveLength(JSON_OPERATION_NAMES.length);
      expect(findings).toEqual([]);
      expect(stderr).not.toMatch(/Warning|Error|portability/);
    });

    it('finds 0 errors and 0 warnings in every tool over Streamable HTTP', async () => {
      const { tools, findings, stderr } = await strictList([
        http.url,
        '--transport',
        'http',
        '--header',
        `x-api-key: ${api.apiKey}`,
        '--header',
        'X-MCP-Toolsets: all',
      ]);
      expect(tools).toHaveLength(JSON_OPERATION_NAMES.length);
      expect(findings).toEqual([]);
      expect(stderr).not.toMatch(/Warning|Error|portability/);
    });
  },
);
