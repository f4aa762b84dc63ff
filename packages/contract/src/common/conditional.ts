import { z } from 'zod';
import type { TaggedResource } from './operations.js';

/**
 * The 304 answer of a single-resource GET whose `If-None-Match` names the current `ETag`: no
 * body (`undefined`), the same `ETag`, and not counted against the rate limit.
 */
export const notModified = { 304: z.undefined() } as const;

/**
 * Whether an `If-None-Match` or `If-Match` field value names `etag` (RFC 9110 §13.1): `*`
 * matches any current tag; otherwise a comma-separated list of tags. `If-None-Match` compares
 * weakly (a `W/` tag matches the strong tag of the same value), `If-Match` strongly (a `W/` tag
 * never matches).
 */
export function etagMatches(fieldValue: string, etag: string, comparison: 'weak' | 'strong'): boolean {
  const value = fieldValue.trim();
  if (value === '*') return true;
  for (const raw of value.split(',')) {
    let tag = raw.trim();
    if (tag.startsWith('W/')) {
      if (comparison === 'strong') continue;
      tag = tag.slice(2);
    }
    if (tag === etag) return true;
  }
  return false;
}

/**
 * Fields of a resource that its `ETag` does not cover: an asset's download links are signed anew
 * on every answer (they expire), so they are not part of its state.
 */
export const UNTAGGED_FIELDS: Partial<Record<TaggedResource, readonly string[]>> = {
  asset: ['downloadUrl', 'previewDownloadUrl'],
};
