#!/usr/bin/env node
// node bench/dist/scenarios/asset-content.js [--mib=1024]
// Issue 14: uploads and downloads one large asset (default 1 GiB) through a production server on
// PostgreSQL (chunked rows) and on the embedded database (DATA_DIR/assets), sampling the server
// process's RSS every 50 ms: before, after, and the peak of each transfer. Needs `pnpm build` and
// PostgreSQL at 127.0.0.1:5432 (database bench_assets, recreated). Prints JSON.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { ensureDatabase, tenantKey } from '../lib/db.js';
import { api, startOurs } from '../lib/ours.js';
import { node24, rssMiB, stopAll, stopProcess } from '../lib/proc.js';

const { values } = parseArgs({ options: { mib: { type: 'string', default: '1024' } } });
const MIB = Number(values.mib);
const piece = Buffer.alloc(1024 * 1024);
for (let i = 0; i < piece.length; i += 1) piece[i] = (i * 31 + 7) % 256;

/** Runs `work` while sampling the RSS of `pid`; returns the work's seconds and the peak RSS. */
async function sampled(
  pid: number,
  work: () => Promise<void>,
): Promise<{ seconds: number; peakMiB: number }> {
  let peak = rssMiB(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMiB(pid));
  }, 50);
  const started = performance.now();
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return { seconds: (performance.now() - started) / 1000, peakMiB: Math.round(Math.max(peak, rssMiB(pid))) };
}

async function measure(store: string, { databaseUrl, dataDir }: { databaseUrl?: string; dataDir?: string }) {
  const key = databaseUrl
    ? tenantKey(databaseUrl, 'bench-assets')
    : tenantKey(undefined, 'bench-assets', { DATA_DIR: dataDir, DATABASE_URL: '' });
  const server = await startOurs({
    name: `server-${store}`,
    bin: node24(),
    databaseUrl,
    dataDir,
    env: {
      ASSET_MAX_BYTES: String(2 * 1024 ** 3),
      HTTP_REQUEST_TIMEOUT_MS: '900000',
      ...(databaseUrl ? {} : { REDIS_URL: '' }),
    },
  });
  try {
    const asset = await api<{ assetId: string }>(server.url, key.apiKey, 'POST', '/v0/assets', {
      name: 'big',
      data: { type: 'video', fileId: 'f' },
    });
    const beforeMiB = Math.round(rssMiB(server.pid));
    let updated: { downloadUrl: string } | undefined;
    const upload = await sampled(server.pid, async () => {
      const body = Readable.from(
        (function* () {
          for (let i = 0; i < MIB; i += 1) yield piece;
        })(),
      );
      const res = await fetch(`${server.url}/v0/assets/${asset.assetId}/content`, {
        method: 'PUT',
        headers: { 'x-api-key': key.apiKey, 'content-type': 'video/mp4' },
        body,
        duplex: 'half',
      });
      if (res.status !== 200) throw new Error(`upload: ${res.status} ${await res.text()}`);
      updated = (await res.json()) as { downloadUrl: string };
    });
    const afterUploadMiB = Math.round(rssMiB(server.pid));
    let bytes = 0;
    const download = await sampled(server.pid, async () => {
      const res = await fetch(updated?.downloadUrl ?? '');
      if (!res.body) throw new Error(`download: ${res.status} without a body`);
      for await (const chunk of res.body) bytes += chunk.length;
    });
    if (bytes !== MIB * 1024 * 1024) throw new Error(`download: ${bytes} bytes`);
    const afterMiB = Math.round(rssMiB(server.pid));
    const rate = (s: number) => Math.round(MIB / s);
    return {
      store,
      mib: MIB,
      beforeMiB,
      upload: { ...upload, MiBps: rate(upload.seconds), afterMiB: afterUploadMiB },
      download: { ...download, MiBps: rate(download.seconds), afterMiB },
    };
  } finally {
    await stopProcess(server);
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'bench-assets-'));
try {
  const results = [
    await measure('postgres', { databaseUrl: await ensureDatabase('bench_assets', { fresh: true }) }),
    await measure('directory', { dataDir }),
  ];
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
} finally {
  await stopAll();
  rmSync(dataDir, { recursive: true, force: true });
}
