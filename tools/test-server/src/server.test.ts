import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migratedDataDir } from './data-dir.js';
import { freePort } from './port.js';
import {
  createKey,
  inheritedEnv,
  runCli,
  SERVER_CLI,
  serverEnv,
  startServer,
  tempDir,
  uniqueTenant,
} from './server.js';

describe('inheritedEnv, serverEnv and uniqueTenant', () => {
  it("drops Vite's BASE_URL and the names asked for", () => {
    process.env.TEST_SERVER_PROBE = '1';
    const env = inheritedEnv(['TEST_SERVER_PROBE']);
    expect(env).not.toHaveProperty('BASE_URL');
    expect(env).not.toHaveProperty('TEST_SERVER_PROBE');
    expect(env.PATH).toBe(process.env.PATH);
    delete process.env.TEST_SERVER_PROBE;
  });

  it('serverEnv takes PostgreSQL from TEST_DATABASE_URL only when asked', () => {
    const saved = { test: process.env.TEST_DATABASE_URL, db: process.env.DATABASE_URL };
    process.env.TEST_DATABASE_URL = 'postgres://test@127.0.0.1/test';
    process.env.DATABASE_URL = 'postgres://inherited@127.0.0.1/db';
    try {
      expect(serverEnv('/data', 'test')).toMatchObject({ DATABASE_URL: 'postgres://test@127.0.0.1/test' });
      expect(serverEnv('/data', 'embedded')).not.toHaveProperty('DATABASE_URL');
      delete process.env.TEST_DATABASE_URL;
      expect(serverEnv('/data', 'test')).toMatchObject({ DATABASE_URL: 'postgres://inherited@127.0.0.1/db' });
    } finally {
      for (const [name, value] of [
        ['TEST_DATABASE_URL', saved.test],
        ['DATABASE_URL', saved.db],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('gives each call another tenant name with the prefix', () => {
    const [a, b] = [uniqueTenant('x'), uniqueTenant('x')];
    expect(a).toMatch(/^x-[a-z0-9]+-[a-z0-9]+$/);
    expect(a).not.toBe(b);
  });
});

describe.skipIf(!existsSync(SERVER_CLI))('the built server CLI', () => {
  it('creates keys, serves until /readyz answers, answers with the key, stops cleanly, then cleans up', async () => {
    const data = await migratedDataDir('customer-api-test-server-');
    // A server that refuses to migrate starts only on a data directory with every migration applied.
    const env = { ...serverEnv(data.path, 'embedded'), HOST: '127.0.0.1', MIGRATE_ON_START: '0' };
    expect(env).toMatchObject({ DATA_DIR: data.path, LOG_LEVEL: 'warn' });
    const tenant = uniqueTenant('test-server');
    const readWrite = await createKey(env, tenant);
    const readOnly = await createKey(env, tenant, 'read');
    expect(readWrite).toMatch(/^cak_/);
    expect(readOnly).not.toBe(readWrite);
    let cleanedUp = false;
    const cleanup = async () => {
      // The data directory is free again once the server exited: the CLI runs against it.
      const keys = await runCli(env, ['keys', 'list', '--tenant', tenant]);
      expect(keys.trim().split('\n')).toHaveLength(2);
      await data.remove();
      cleanedUp = true;
    };
    const server = await startServer({ env, port: await freePort(), capture: 'stderr', cleanup });
    const pages = await fetch(`${server.url}/v0/pages`, { headers: { 'x-api-key': readOnly } });
    expect(pages.status).toBe(200);
    const denied = await fetch(`${server.url}/v0/pages`, {
      method: 'POST',
      headers: { 'x-api-key': readOnly, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(denied.status).toBe(403);
    expect(cleanedUp).toBe(false);
    expect(await server.stop(30_000)).toBe(0);
    expect(cleanedUp).toBe(true);
    expect(existsSync(data.path)).toBe(false);
  });

  it('copies one migrated template into a new directory per call', async () => {
    const [a, b] = await Promise.all([
      migratedDataDir('customer-api-copy-'),
      migratedDataDir('customer-api-copy-'),
    ]);
    try {
      expect(a.path).not.toBe(b.path);
      expect(readdirSync(a.path).sort()).toEqual(readdirSync(b.path).sort());
      expect(readdirSync(a.path)).toContain('PG_VERSION');
      await a.remove();
      expect(existsSync(a.path)).toBe(false);
      expect(existsSync(join(b.path, 'PG_VERSION'))).toBe(true);
    } finally {
      await Promise.all([a.remove(), b.remove()]);
    }
  });

  it('rejects with the output when the server cannot start, and cleans up', async () => {
    const data = await tempDir('customer-api-test-server-');
    const env = { ...serverEnv(data.path, 'embedded'), RATE_LIMIT_MAX: 'many' };
    await expect(startServer({ env, port: await freePort(), cleanup: data.remove })).rejects.toThrow(
      /exited \(1\)[\s\S]*RATE_LIMIT_MAX/,
    );
    expect(existsSync(data.path)).toBe(false);
  });
});
