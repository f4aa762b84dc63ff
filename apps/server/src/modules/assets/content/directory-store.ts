import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type AssetStore, assertBlobId } from './store.js';

/**
 * Blobs as files of one directory (the embedded database's `DATA_DIR/assets`). A blob is written
 * to `<id>.partial` and renamed when complete, so a file named by its id is always whole; an
 * open reader keeps reading a file removed under it (POSIX). Files are named by blob id alone
 * (blob ids are unique across tenants), so the tenant each call names is not part of the path.
 */
export class DirectoryStore implements AssetStore {
  private ready: Promise<unknown> | undefined;

  constructor(readonly dir: string) {}

  private path(blobId: string): string {
    assertBlobId(blobId);
    return join(this.dir, blobId);
  }

  async put(_tenantId: string, blobId: string, body: AsyncIterable<Buffer>): Promise<void> {
    const path = this.path(blobId);
    this.ready ??= mkdir(this.dir, { recursive: true });
    await this.ready;
    const partial = `${path}.partial`;
    try {
      await pipeline(Readable.from(body, { objectMode: false }), createWriteStream(partial, { flush: true }));
      await rename(partial, path);
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
  }

  async get(_tenantId: string, blobId: string, start: number, end: number): Promise<Readable | undefined> {
    const handle = await open(this.path(blobId), 'r').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (!handle) return undefined;
    if (end < start) {
      await handle.close();
      return Readable.from([]);
    }
    return createReadStream('', { fd: handle, start, end, highWaterMark: 256 * 1024 });
  }

  async stat(_tenantId: string, blobId: string): Promise<number | undefined> {
    const info = await stat(this.path(blobId)).catch(() => undefined);
    return info?.size;
  }

  async delete(_tenantId: string, blobId: string): Promise<void> {
    await rm(this.path(blobId), { force: true });
  }
}
