import type { Readable } from 'node:stream';

/**
 * Where blob bytes live. Blobs are immutable: a new upload is a new blob id. Each blob belongs to
 * the tenant of the asset it is uploaded for: every call names that tenant (`tenantId`), and a
 * blob is found only under the tenant it was written for.
 */
export interface AssetStore {
  /**
   * Writes `body` as blob `blobId` of tenant `tenantId`; resolves once every byte is durable. On
   * any failure (the body's stream errors, e.g. an aborted client or the size limit) nothing
   * remains stored.
   */
  put(tenantId: string, blobId: string, body: AsyncIterable<Buffer>): Promise<void>;
  /** Bytes `start`..`end` (inclusive) of a tenant's blob; undefined when it does not exist. */
  get(tenantId: string, blobId: string, start: number, end: number): Promise<Readable | undefined>;
  /** The size in bytes of a tenant's blob, or undefined when it does not exist. */
  stat(tenantId: string, blobId: string): Promise<number | undefined>;
  /** Removes a tenant's blob; removing a missing one is not an error. */
  delete(tenantId: string, blobId: string): Promise<void>;
  close?(): Promise<void>;
}

/** Blob ids are generated (`blob_` + 26 base32 characters); anything else is refused. */
export const BLOB_ID = /^blob_[0-9a-z]{26}$/;

/** Throws unless `blobId` is a generated id: ids become file names, so they must never be input. */
export function assertBlobId(blobId: string): void {
  if (!BLOB_ID.test(blobId)) throw new Error(`not a blob id: ${JSON.stringify(blobId)}`);
}
