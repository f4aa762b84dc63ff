import { Readable } from 'node:stream';
import type { Db } from '../../../db/port.js';
import { bytea, int, rowOf, sql, statement, text } from '../../../db/sql.js';
import { type AssetStore, assertBlobId } from './store.js';

/** Bytes per stored row: large enough to keep rows few, small enough to stay flat in memory. */
export const CHUNK_BYTES = 1024 * 1024;

const insertChunk = statement({
  name: 'asset_chunk_insert',
  params: { tenantId: text, blobId: text, seq: int, data: bytea },
  sql: (p) => sql`INSERT INTO asset_chunks (tenant_id, blob_id, seq, data)
    VALUES (${p.tenantId}, ${p.blobId}, ${p.seq}, ${p.data})`,
});

const chunkBySeq = statement({
  name: 'asset_chunk_by_seq',
  params: { tenantId: text, blobId: text, seq: int },
  sql: (p) => sql`SELECT data FROM asset_chunks
    WHERE tenant_id = ${p.tenantId} AND blob_id = ${p.blobId} AND seq = ${p.seq}`,
  row: rowOf<{ data: Buffer }>(),
});

const blobSize = statement({
  name: 'asset_chunks_size',
  params: { tenantId: text, blobId: text },
  sql: (p) => sql`SELECT count(*) AS n, sum(length(data)) AS size FROM asset_chunks
    WHERE tenant_id = ${p.tenantId} AND blob_id = ${p.blobId}`,
  row: rowOf<{ n: number; size: number | null }>(),
});

const deleteChunks = statement({
  name: 'asset_chunks_delete',
  params: { tenantId: text, blobId: text },
  sql: (p) => sql`DELETE FROM asset_chunks WHERE tenant_id = ${p.tenantId} AND blob_id = ${p.blobId}`,
});

/**
 * Blobs as 1 MiB `bytea` rows of `asset_chunks` in PostgreSQL, so every server process sharing
 * the database serves every file. Each chunk is its own statement (the statement timeout holds);
 * a failed upload deletes what it wrote. Every chunk is stored and found under its blob's tenant.
 * Its statements run on `db`, the handle of no tenant (`Database.db`): the store serves signed
 * download links too, which hold no tenant's share of connections (the tenant is the one the link
 * names and the asset file was found under).
 */
export class PostgresStore implements AssetStore {
  constructor(private readonly db: Db) {}

  async put(tenantId: string, blobId: string, body: AsyncIterable<Buffer>): Promise<void> {
    assertBlobId(blobId);
    let seq = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async (bytes: number) => {
      const all = Buffer.concat(pending, pendingBytes);
      const chunk = all.subarray(0, bytes);
      pending = bytes < all.length ? [all.subarray(bytes)] : [];
      pendingBytes = all.length - bytes;
      await this.db.run(insertChunk, { tenantId, blobId, seq, data: chunk });
      seq += 1;
    };
    try {
      for await (const piece of body) {
        pending.push(piece);
        pendingBytes += piece.length;
        while (pendingBytes >= CHUNK_BYTES) await flush(CHUNK_BYTES);
      }
      if (pendingBytes > 0 || seq === 0) await flush(pendingBytes);
    } catch (err) {
      await this.delete(tenantId, blobId);
      throw err;
    }
  }

  async get(tenantId: string, blobId: string, start: number, end: number): Promise<Readable | undefined> {
    assertBlobId(blobId);
    const first = Math.floor(start / CHUNK_BYTES);
    const last = end < start ? first - 1 : Math.floor(end / CHUNK_BYTES);
    const head = await this.chunk(tenantId, blobId, first);
    if (!head) return undefined;
    const read = (seq: number) => this.chunk(tenantId, blobId, seq);
    return Readable.from(
      (async function* () {
        for (let seq = first; seq <= last; seq += 1) {
          const data = seq === first ? head : await read(seq);
          // Removed while read (replaced, then cleaned up): fail the response, never cut it short silently.
          if (!data) throw new Error(`blob ${blobId} chunk ${seq} is gone`);
          const from = seq === first ? start - seq * CHUNK_BYTES : 0;
          const to = seq === last ? end - seq * CHUNK_BYTES + 1 : data.length;
          yield data.subarray(from, to);
        }
      })(),
      { objectMode: false },
    );
  }

  private async chunk(tenantId: string, blobId: string, seq: number): Promise<Buffer | undefined> {
    return (await this.db.first(chunkBySeq, { tenantId, blobId, seq }))?.data;
  }

  async stat(tenantId: string, blobId: string): Promise<number | undefined> {
    assertBlobId(blobId);
    const row = await this.db.first(blobSize, { tenantId, blobId });
    return row && row.n > 0 ? Number(row.size) : undefined;
  }

  async delete(tenantId: string, blobId: string): Promise<void> {
    assertBlobId(blobId);
    await this.db.run(deleteChunks, { tenantId, blobId });
  }
}
