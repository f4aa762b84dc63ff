// A Redis server of the bench's own, for the BullMQ peer of the webhook scenario: a temp directory,
// a free loopback port, `appendonly yes` and `appendfsync everysec` (a write is on disk within a
// second: a crash can lose the last second, unlike a PostgreSQL commit). Debian's `redis-server`
// is installed when missing (as root, the way .ci/run installs PostgreSQL), else REDIS_SERVER.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tcpAnswers } from '@customer-api/test-server';
import { freePort } from './proc.js';

/** The redis-server binary: REDIS_SERVER, else Debian's, installed with apt-get when missing. */
export function redisServerBinary() {
  if (process.env.REDIS_SERVER) return process.env.REDIS_SERVER;
  const debian = '/usr/bin/redis-server';
  if (existsSync(debian)) return debian;
  if (process.getuid?.() !== 0)
    throw new Error('redis-server is missing: install Debian’s redis-server or set REDIS_SERVER');
  process.stderr.write('Installing Debian’s redis-server for the BullMQ peer...\n');
  execFileSync(
    'sh',
    [
      '-c',
      'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null',
    ],
    {
      stdio: 'inherit',
    },
  );
  return debian;
}

/**
 * Starts a Redis with the append-only file on and fsync every second; resolves once it accepts
 * connections. `stop()` kills it and removes its directory.
 */
export async function startRedisServer() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-redis-'));
  const port = await freePort();
  const child = spawn(
    redisServerBinary(),
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--daemonize',
      'no',
      '--loglevel',
      'warning',
    ],
    { stdio: 'ignore' },
  );
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 200; i += 1) {
    if (await tcpAnswers(`redis://127.0.0.1:${port}`, port))
      return { port, pid: child.pid, url: `redis://127.0.0.1:${port}`, stop };
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop();
  throw new Error(`redis-server did not start on port ${port}`);
}
