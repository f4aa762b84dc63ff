import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, inject, it } from 'vitest';

const api = inject('api');
const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

describe('customer-api-mcp --http as a process', () => {
  it('serves tools on the printed URL with each client’s key, and stops cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, [MAIN, '--http', '--port', '0', '--log-level', 'warn'], {
      env: { PATH: process.env.PATH ?? '', CUSTOMER_API_BASE_URL: api.baseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          const match = /listening on (\S+)/.exec(stderr);
          if (match?.[1]) resolve(match[1]);
        });
        child.once('exit', () => reject(new Error(`exited: ${stderr}`)));
      });
      const client = new Client({ name: 'http-process', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { 'x-api-key': api.apiKey } },
        }),
      );
      const result = await client.callTool({ name: 'list_pages', arguments: { limit: 1 } });
      expect(result.isError).toBeFalsy();
      await client.close();
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('prints its options with --help and rejects unknown toolsets at start', () => {
    const help = spawnSync(process.execPath, [MAIN, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--toolsets <a,b>');
    const bad = spawnSync(process.execPath, [MAIN, '--http', '--toolsets', 'nope'], { encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('Unknown toolset nope; toolsets: default, all, pages');
  });
});
