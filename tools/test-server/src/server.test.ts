import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { freePort } from './port.js';
import { createKey, inheritedEnv, runCli, SERVER_CLI, startServer, tempDir, uniqueTenant } from './server.js';

describe('inheritedEnv and uniqueTenant', () => {
  it("drops Vite's BASE_URL and the names asked for", () => {
    process.env.TEST_SERVER_PROBE = '1';
    const env = inheritedEnv(['TEST_SERVER_PROBE']);
    expect(env).not.toHaveProperty('BASE_URL');
    expect(env).not.toHaveProperty('TEST_SERVER_PROBE');
    expect(env.PATH).toBe(process.env.PATH);
    delete process.env.TEST_SERVER_PROBE;
  });

  it('gives each call another tenant name with the prefix', () => {
    const [a, b] = [uniqueTenant('x'), uniqueTenant('x')];
    expect(a).toMatch(/^x-[a-z0-9]+-[a-z0-9]+$/);
    expect(a).not.toBe(b);
  });
});

describe.skipIf(!existsSync(SERVER_CLI))('the built server CLI', () => {
  it('creates keys, serves until /readyz answers, answers with the key, and stops cleanly', async () => {
    const data = await tempDir('customer-api-test-server-');
    try {
      const env = {
        ...inheritedEnv(['DATABASE_URL']),
        DATA_DIR: data.path,
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
      };
      const tenant = uniqueTenant('test-server');
      const readWrite = await createKey(env, tenant);
      const readOnly = await createKey(env, tenant, 'read');
      expect(readWrite).toMatch(/^cak_/);
      expect(readOnly).not.toBe(readWrite);
      const server = await startServer({ env, port: await freePort(), capture: 'stderr' });
      const pages = await fetch(`${server.url}/v0/pages`, { headers: { 'x-api-key': readOnly } });
      expect(pages.status).toBe(200);
      const denied = await fetch(`${server.url}/v0/pages`, {
        method: 'POST',
        headers: { 'x-api-key': readOnly, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(denied.status).toBe(403);
      expect(await server.stop(30_000)).toBe(0);
      // The data directory is free again: the CLI runs against it.
      const keys = await runCli(env, ['keys', 'list', '--tenant', tenant]);
      expect(keys.trim().split('\n')).toHaveLength(2);
    } finally {
      await data.remove();
    }
  });

  it('rejects with the output when the server cannot start', async () => {
    const data = await tempDir('customer-api-test-server-');
    try {
      const env = { ...inheritedEnv(['DATABASE_URL']), DATA_DIR: data.path, RATE_LIMIT_MAX: 'many' };
      await expect(startServer({ env, port: await freePort() })).rejects.toThrow(
        /exited \(1\)[\s\S]*RATE_LIMIT_MAX/,
      );
    } finally {
      await data.remove();
    }
  });
});
