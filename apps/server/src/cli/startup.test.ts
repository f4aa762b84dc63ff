import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const run = promisify(execFile);

describe('start-up with a bad configuration (the built CLI as a process)', () => {
  it('exits 1 naming every bad variable at once, without a stack trace', async () => {
    const env = {
      PATH: process.env.PATH,
      PORT: 'eighty',
      HOST: '',
      DATABASE_URL: 'mysql://admin:hunter2@localhost/db',
      REDIS_URL: 'http://cache:s3cret-pw@localhost:6379',
      RATE_LIMIT_MAX: '-1',
      WEBHOOKS_RETRY_SCHEDULE: '1,soon',
      LOG_LEVEL: 'loud',
    };
    const failure = await run(process.execPath, [main, 'start'], { env }).then(
      () => undefined,
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stdout).toBe('');
    const stderr = failure?.stderr ?? '';
    expect(stderr).toMatch(/^Invalid environment:/);
    for (const name of Object.keys(env).filter((key) => key !== 'PATH')) {
      expect(stderr).toContain(`${name}=`);
    }
    expect(stderr).toContain('must start with postgres:// or postgresql://');
    expect(stderr).not.toMatch(/\n\s+at /);
    // The bad URLs are named, their passwords are not.
    expect(stderr).toContain('mysql://admin:***@localhost/db');
    expect(stderr).not.toContain('hunter2');
    expect(stderr).not.toContain('s3cret-pw');
  });
});
