import { Readable } from 'node:stream';
import { etagMatches } from '@customer-api/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type ByteHandler, registerByteOperation } from '../../../http/byte-operations.js';
import type { TenantHandles } from '../../../http/tenant-db.js';
import { ForbiddenError, ServiceUnavailableError, ValidationError } from '../../../lib/errors.js';
import * as service from './content.service.js';
import type { ContentKind } from './links.js';
import { parseRange } from './range.js';

/** What the content routes need: the service's dependencies but the handle, which each request gets. */
export type ContentRouteDeps = Omit<service.ContentDeps, 'db'> & { handles: TenantHandles };

const MEDIA_TYPE = /^[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+(\s*;.*)?$/;

function contentTypeOf(request: FastifyRequest): string {
  const value = request.headers['content-type']?.trim();
  if (!value) return 'application/octet-stream';
  if (value.length > 255 || !MEDIA_TYPE.test(value))
    throw ValidationError.of(
      'headers',
      'Content-Type must be a media type such as image/png (at most 255 characters).',
      ['content-type'],
    );
  return value;
}

function declaredLength(request: FastifyRequest): number | undefined {
  const value = request.headers['content-length'];
  return value === undefined ? undefined : Number(value);
}

/**
 * `putAssetContent` and `putAssetPreview`: the raw body, any media type, streamed to the store.
 * Register in the authenticated `/v0` scope (auth, rate limit); their statements run on the key's
 * tenant's handle. The routes live in their own scope whose only parser hands the body stream
 * through untouched, so neither the JSON parser nor its 1 MiB limit applies to them.
 */
export function registerContentUploads(scope: FastifyInstance, deps: ContentRouteDeps): void {
  void scope.register(async (uploads) => {
    uploads.removeAllContentTypeParsers();
    uploads.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    // A refused upload may not have been read to its end: close rather than drain the rest.
    uploads.addHook('onError', async (_request, reply) => {
      reply.header('connection', 'close');
    });
    const upload =
      (kind: ContentKind): ByteHandler =>
      async ({ request, reply, params, db, tenantId }) => {
        const ifMatch = request.headers['if-match'];
        const stored = await service.putContent({ ...deps, db }, tenantId, params.asset_id as string, kind, {
          body: (request.body as Readable | undefined) ?? Readable.from([]),
          contentType: contentTypeOf(request),
          declaredLength: declaredLength(request),
          ifMatch: typeof ifMatch === 'string' ? ifMatch : undefined,
        });
        // The tag of the bytes just stored: what their download sends, and the next If-Match.
        reply.header('etag', stored.etag);
        return { status: 200, body: stored.asset };
      };
    registerByteOperation(uploads, 'putAssetContent', upload('content'), deps);
    registerByteOperation(uploads, 'putAssetPreview', upload('preview'), deps);
  });
}

/**
 * `downloadAssetContent` and `downloadAssetPreview`: no API key, the signed link is the
 * credential. Register at the root, outside the authenticated scope (a download takes no
 * rate-limit unit). The link names its tenant: a forged or expired one is 403 before anything
 * is read; a valid one's statements run on that tenant's handle.
 */
export function registerContentDownloads(app: FastifyInstance, deps: ContentRouteDeps): void {
  const tenantOf = (kind: ContentKind) => (request: FastifyRequest) => {
    const { asset_id: assetId } = request.params as { asset_id: string };
    const { tenant, expires, signature } = request.query as Record<string, unknown>;
    const check = deps.downloadLinks.check(assetId, kind, { tenant, expires, signature }, deps.clock());
    if (check.result === 'forged')
      throw new ForbiddenError(
        'This download link is not valid for this asset; take a fresh one from the asset.',
      );
    if (check.result === 'expired')
      throw new ForbiddenError('This download link has expired; take a fresh one from the asset.');
    return check.tenantId;
  };
  const download =
    (kind: ContentKind): ByteHandler =>
    async ({ request, reply, params, db, tenantId }) => {
      const assetId = params.asset_id as string;
      const file = await service.servedFile({ ...deps, db }, tenantId, assetId, kind);
      const etag = service.contentEtag(file.sha256);
      reply.headers({
        etag,
        'cache-control': 'private',
        'accept-ranges': 'bytes',
        // Uploaded HTML or SVG must not run as this origin (where /docs keeps API keys).
        'content-security-policy': "sandbox; default-src 'none'",
        'x-content-type-options': 'nosniff',
      });
      const ifNoneMatch = request.headers['if-none-match'];
      if (ifNoneMatch && etagMatches(ifNoneMatch, etag, 'weak')) return { status: 304 };
      const ifRange = request.headers['if-range'];
      const range =
        ifRange && ifRange !== etag
          ? { kind: 'whole' as const }
          : parseRange(request.headers.range, file.size);
      if (range.kind === 'unsatisfiable') {
        reply.header('content-range', `bytes */${file.size}`);
        return { status: 416 };
      }
      const [start, end] = range.kind === 'partial' ? [range.start, range.end] : [0, file.size - 1];
      if (range.kind === 'partial') reply.header('content-range', `bytes ${start}-${end}/${file.size}`);
      reply.type(file.contentType).header('content-length', String(end - start + 1));
      const status = range.kind === 'partial' ? 206 : 200;
      // HEAD answers the headers without reading a byte of the blob.
      if (request.method === 'HEAD') return { status, body: Readable.from([]) };
      const stream = await deps.store.get(file.tenantId, file.blobId, start, end);
      // Replaced (and the old bytes removed) between the lookup and the read: the next try sees the new.
      if (!stream)
        throw new ServiceUnavailableError('The content was replaced while this download started; retry.');
      return { status, body: stream };
    };
  registerByteOperation(app, 'downloadAssetContent', download('content'), {
    ...deps,
    tenantOf: tenantOf('content'),
  });
  registerByteOperation(app, 'downloadAssetPreview', download('preview'), {
    ...deps,
    tenantOf: tenantOf('preview'),
  });
}
