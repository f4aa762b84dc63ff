import type { Call, Recorder } from './exchanges.js';
import type { Keys } from './processes.js';

/** An id of the right form that no tenant has. */
export const unknownId = (prefix: string) => `${prefix}_0000000000000000000000000a`;
/** The server's `ASSET_MAX_BYTES` in this check: an upload one byte larger is 400. */
export const ASSET_MAX_BYTES = 1024;
/** A tag of the form the server sends that no representation has: a write with it is 412. */
export const STALE_ETAG = '"AAAAAAAAAAAAAAAAAAAAAA"';
/** A key the server never issued: 401. */
const FORGED_KEY = 'cak_forged0000000000000000000000000000000000';

/** The path with its last id replaced by an unknown one of the same kind, or undefined. */
function withUnknownLastId(path: string): string | undefined {
  const ids = [...path.matchAll(/\/([a-z]+)_[0-9a-z]{26}(?=[/?]|$)/g)];
  const last = ids.at(-1);
  if (!last || last.index === undefined) return undefined;
  return `${path.slice(0, last.index)}/${unknownId(last[1] ?? '')}${path.slice(last.index + last[0].length)}`;
}

/** Operations without an id in the path whose body names another resource: that id unknown is 404. */
const NOT_FOUND_BODIES: Record<string, (body: Record<string, unknown>) => Record<string, unknown>> = {
  createAudienceSession: () => ({ audienceId: unknownId('audience') }),
  createPersonLog: (body) => ({ ...body, personId: unknownId('person') }),
  createAccountLog: (body) => ({
    source: body.source,
    payload: body.payload,
    accountId: unknownId('account'),
  }),
  createAsset: (body) => ({ ...body, parentAssetId: unknownId('asset') }),
};

/**
 * The error and conditional calls of one operation, from its successful call and the statuses the
 * document declares for it: 304 (`If-None-Match: *` on a read of an existing resource), 400 (an
 * unknown query parameter, an upload too large), 401 (a forged key), 403 (a key without the
 * scope), 404 (an unknown id), 412 (a stale `If-Match`); the 304 and 412 on `livePath` when the
 * successful call's resource is gone by then. 409 and 429 have their own steps ({@link idempotencyConflict}, a spent
 * window).
 */
export function errorCalls(
  ok: Call,
  declared: Set<number>,
  keys: Keys,
  hasQuery: boolean,
  livePath: string = ok.path,
): Call[] {
  const calls: Call[] = [];
  const write = ok.method !== 'GET';
  const body = (ok.body ?? {}) as Record<string, unknown>;
  const add = (status: number, change: Partial<Call>) => {
    if (declared.has(status)) calls.push({ ...ok, ...change, expect: status });
  };
  // A JSON body or a path the server refuses is one the document forbids too: the proxy refuses it.
  if (ok.raw) add(400, { raw: new Uint8Array(ASSET_MAX_BYTES + 1) });
  else if (hasQuery) add(400, { path: `${ok.path}${ok.path.includes('?') ? '&' : '?'}unexpected=1` });
  add(304, { path: livePath, headers: { ...ok.headers, 'if-none-match': '*' } });
  add(412, { path: livePath, headers: { ...ok.headers, 'if-match': STALE_ETAG } });
  add(401, { key: FORGED_KEY });
  add(403, { key: write ? keys.readOnly : keys.writeOnly });
  const notFound = NOT_FOUND_BODIES[ok.operation];
  if (notFound) add(404, { body: notFound(body) });
  else {
    const path = withUnknownLastId(ok.path);
    if (path) add(404, { path });
  }
  return calls;
}

/**
 * 409 for a write: the same `Idempotency-Key` first used for another request (a topic), then for
 * this one. The server answers CONFLICT before it runs anything.
 */
export async function idempotencyConflict(rec: Recorder, ok: Call, keys: Keys): Promise<void> {
  const idempotencyKey = `openapi-check-${ok.operation}-${Math.random().toString(36).slice(2)}`;
  const headers = { ...ok.headers, 'idempotency-key': idempotencyKey };
  await rec.send({
    operation: 'createTopic',
    method: 'POST',
    path: '/v0/topics',
    expect: 201,
    key: keys.owner,
    headers,
    body: { title: `Key ${idempotencyKey}` },
  });
  await rec.send({ ...ok, key: keys.owner, headers, expect: 409 });
}
