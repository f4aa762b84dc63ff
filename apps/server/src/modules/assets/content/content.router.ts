import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requireAuth } from '../../../http/auth.js';
import { ForbiddenError, ServiceUnavailableError, ValidationError } from '../../../lib/errors.js';
import * as service from './content.service.js';
import type { ContentKind } from './links.js';
import { matchesEtag, parseRange } from './range.js';

type AssetRequest = FastifyRequest<{ Params: { asset_id: string }; Querystring: Record<string, unknown> }>;

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
 * `PUT /v0/assets/{asset_id}/content` and `…/preview`: the raw body, any media type, streamed to
 * the store. Register in the authenticated `/v0` scope (auth, rate limit); its statements run on
 * the tenant's handle (`deps.tenantDb`), so they hold the tenant's share of connections. The
 * routes live in their own scope whose only parser hands the body stream through untouched, so
 * neither the JSON parser nor its 1 MiB limit applies to them.
 */
export function registerContentUploads(scope: FastifyInstance, deps: service.ContentDeps): void {
  void scope.register(async (uploads) => {
    uploads.removeAllContentTypeParsers();
    uploads.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    // A refused upload may not have been read to its end: close rather than drain the rest.
    uploads.addHook('onError', async (_request, reply) => {
      reply.header('connection', 'close');
    });
    const upload = (kind: ContentKind) => async (request: AssetRequest) => {
      const { tenantId } = requireAuth(request);
      const body = (request.body as Readable | undefined) ?? Readable.from([]);
      const db = deps.tenantDb(tenantId);
      try {
        return await service.putContent({ ...deps, db }, tenantId, request.params.asset_id, kind, {
          body,
          contentType: contentTypeOf(request),
          declaredLength: declaredLength(request),
        });
      } finally {
        await deps.written?.(tenantId);
      }
    };
    uploads.put('/v0/assets/:asset_id/content', upload('content'));
    uploads.put('/v0/assets/:asset_id/preview', upload('preview'));
  });
}

/**
 * `GET /v0/assets/{asset_id}/download` and `…/preview/download`: no API key, the signed link is
 * the credential. Register at the root, outside the authenticated scope. The link names its
 * tenant, whose file is read by key; the statement runs on `deps.db`, outside the tenant's share
 * of connections (a download takes no rate-limit unit either).
 */
export function registerContentDownloads(app: FastifyInstance, deps: service.ContentDeps): void {
  const download = (kind: ContentKind) => async (request: AssetRequest, reply: FastifyReply) => {
    const assetId = request.params.asset_id;
    const { tenant, expires, signature } = request.query;
    const check = deps.downloadLinks.check(assetId, kind, { tenant, expires, signature }, deps.clock());
    if (check.result === 'forged')
      throw new ForbiddenError(
        'This download link is not valid for this asset; take a fresh one from the asset.',
      );
    if (check.result === 'expired')
      throw new ForbiddenError('This download link has expired; take a fresh one from the asset.');
    const file = await service.servedFile(deps, check.tenantId, assetId, kind);
    const etag = `"${file.sha256}"`;
    reply.headers({
      etag,
      'cache-control': 'private',
      'accept-ranges': 'bytes',
      // Uploaded HTML or SVG must not run as this origin (where /docs keeps API keys).
      'content-security-policy': "sandbox; default-src 'none'",
      'x-content-type-options': 'nosniff',
    });
    if (matchesEtag(request.headers['if-none-match'], etag)) return reply.status(304).send();
    const ifRange = request.headers['if-range'];
    const range =
      ifRange && ifRange !== etag ? { kind: 'whole' as const } : parseRange(request.headers.range, file.size);
    if (range.kind === 'unsatisfiable')
      return reply.status(416).header('content-range', `bytes */${file.size}`).send();
    const [start, end] = range.kind === 'partial' ? [range.start, range.end] : [0, file.size - 1];
    if (range.kind === 'partial')
      reply.status(206).header('content-range', `bytes ${start}-${end}/${file.size}`);
    reply.type(file.contentType).header('content-length', String(end - start + 1));
    // HEAD answers the headers without reading a byte of the blob.
    if (request.method === 'HEAD') return reply.send(Readable.from([]));
    const stream = await deps.store.get(file.tenantId, file.blobId, start, end);
    // Replaced (and the old bytes removed) between the lookup and the read: the next try sees the new.
    if (!stream)
      throw new ServiceUnavailableError('The content was replaced while this download started; retry.');
    return reply.send(stream);
  };
  app.get('/v0/assets/:asset_id/download', download('content'));
  app.get('/v0/assets/:asset_id/preview/download', download('preview'));
}
