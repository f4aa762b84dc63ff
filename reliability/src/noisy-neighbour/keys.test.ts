// One tenant cannot slow down another, and no input gets a 500: each finding of the attack on the
// first release candidate (two tenants, far under the rate limit) replayed against the real app.
// Findings 6 and 8: invalid keys from a spent address, and keys and passwords kept out of logs.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startInProcess } from '../lib/in-process.js';
import { report } from '../lib/profile.js';
import { baseEnv, createKey, SERVER_MAIN, startProcess } from '../lib/server-process.js';

describe('6. invalid keys once the address is spent', () => {
  it('cost no database work: a spent address is refused before the key is looked up', async () => {
    const limited = await startInProcess({ RATE_LIMIT_MAX: '20' });
    const address = { remoteAddress: '198.51.100.9' };
    try {
      let checkouts = 0;
      const pglite = limited.database.pglite;
      // Observes (does not replace) the embedded database's statements.
      const query = pglite?.query.bind(pglite);
      if (pglite && query) {
        pglite.query = ((...args: Parameters<typeof query>) => {
          checkouts += 1;
          return query(...args);
        }) as typeof pglite.query;
      }
      const statuses = new Map<number, number>();
      for (let i = 0; i < 1000; i += 1) {
        const res = await limited.app.inject({
          url: '/v0/pages',
          headers: { 'x-api-key': `cak_${randomBytes(16).toString('hex')}` },
          ...address,
        });
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      }
      expect(statuses.get(401)).toBe(20);
      expect(statuses.get(429)).toBe(980);
      // The keys tried while the window lasted, and the one that found it spent; none after.
      expect(checkouts).toBeLessThanOrEqual(21);
      report('noisy-neighbour-spent-address', { randomKeys: 1000, statements: checkouts });
    } finally {
      await limited.close();
    }
  });
});

describe('8. secrets in logs', () => {
  it('never logs a key sent in the URL, and never prints a database password at start-up', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'reliability-log-secrets-'));
    const env = baseEnv({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    try {
      const apiKey = await createKey(env, 'log-secrets');
      const proc = await startProcess(env);
      try {
        const res = await fetch(`${proc.url}/v0/pages?api_key=${apiKey}&limit=1`);
        expect(res.status).toBe(401);
        await fetch(`${proc.url}/v0/pages?limit=1`, { headers: { 'x-api-key': apiKey } });
      } finally {
        await proc.stop();
      }
      expect(proc.output()).toContain('api_key=[redacted]');
      expect(proc.output()).not.toContain(apiKey.slice(4));
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
    const failed = await promisify(execFile)(process.execPath, [SERVER_MAIN, 'migrate'], {
      env: baseEnv({ DATABASE_URL: 'postgresql//admin:pa55word@db/x', REDIS_URL: 'http://u:r3dis@h' }),
    }).then(
      () => undefined,
      (err: { stderr: string }) => err.stderr,
    );
    expect(failed).toContain('DATABASE_URL=');
    expect(failed).not.toContain('pa55word');
    expect(failed).not.toContain('r3dis');
  });
});
