import { execFile } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { asOwner, type Cluster, createCluster, PG_BIN } from './postgres.js';
import { freePort } from './server-process.js';

const run = promisify(execFile);

/** A throwaway primary and a hot standby streaming from it, each on a free port. */
export interface ReplicatedClusters {
  primary: Cluster;
  standby: Cluster & {
    /** `pg_wal_replay_pause()` / `pg_wal_replay_resume()` on the standby. */
    pauseReplay(): Promise<void>;
    resumeReplay(): Promise<void>;
    /** Resolves once the standby has replayed everything the primary wrote so far (30 s at most). */
    caughtUp(): Promise<void>;
  };
  destroy(): Promise<void>;
}

/** One statement on a server, on a connection of its own. */
export async function query<R extends Record<string, unknown>>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}

async function ownedTempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  if (userInfo().uid === 0) {
    const { stdout: uid } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(uid.trim()), Number(gid.trim()));
  }
  return dir;
}

/**
 * Creates a primary (`createCluster`: PostgreSQL 15's defaults are `wal_level=replica` and a
 * `trust` replication line for 127.0.0.1) and a standby cloned from it with `pg_basebackup -R`
 * (the clone streams from the primary as soon as it starts).
 */
export async function createReplicatedClusters(): Promise<ReplicatedClusters> {
  const primary = await createCluster();
  const { port: primaryPort } = new URL(primary.url);
  const dir = await ownedTempDir('reliability-standby-');
  const data = join(dir, 'data');
  const port = await freePort();
  try {
    await asOwner([
      join(PG_BIN, 'pg_basebackup'),
      ...[
        '-h',
        '127.0.0.1',
        '-p',
        primaryPort,
        '-U',
        'postgres',
        '-D',
        data,
        '-R',
        '-X',
        'stream',
        '--no-sync',
      ],
    ]);
  } catch (err) {
    await primary.destroy();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200 -c hot_standby=on`;
  const pgCtl = (...args: string[]) => asOwner([join(PG_BIN, 'pg_ctl'), '-D', data, ...args]);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const standby: ReplicatedClusters['standby'] = {
    url,
    start: () => pgCtl('-w', '-t', '60', '-l', join(dir, 'log'), '-o', options, 'start'),
    stop: () => pgCtl('-w', '-t', '60', '-m', 'fast', 'stop'),
    destroy: async () => {
      await pgCtl('-w', '-m', 'immediate', 'stop').catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
    pauseReplay: async () => {
      await query(url, 'SELECT pg_wal_replay_pause()');
    },
    resumeReplay: async () => {
      await query(url, 'SELECT pg_wal_replay_resume()');
    },
    caughtUp: async () => {
      const [{ lsn } = { lsn: '' }] = await query<{ lsn: string }>(
        primary.url,
        'SELECT pg_current_wal_insert_lsn()::text AS lsn',
      );
      for (let i = 0; i < 300; i++) {
        const [row] = await query<{ done: boolean }>(
          url,
          `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`,
        );
        if (row?.done) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`the standby did not replay up to ${lsn} within 30 s`);
    },
  };
  await standby.start();
  return {
    primary,
    standby,
    destroy: async () => {
      await standby.destroy();
      await primary.destroy();
    },
  };
}
