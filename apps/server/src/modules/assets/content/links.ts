import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../../config.js';

/** What a link serves: the uploaded content, or its preview (falling back to the content). */
export type ContentKind = 'content' | 'preview';

/** The two addresses every Asset carries. */
export interface AssetLinks {
  downloadUrl: string;
  previewDownloadUrl: string;
}

/** Outcome of checking a link's query parameters: a valid link gives the tenant it names. */
export type LinkCheck = { result: 'valid'; tenantId: string } | { result: 'expired' } | { result: 'forged' };

/** Path of an asset's download route (`/v0/assets/{id}/download` or `…/preview/download`). */
export function downloadPath(assetId: string, kind: ContentKind): string {
  const base = `/v0/assets/${encodeURIComponent(assetId)}`;
  return kind === 'content' ? `${base}/download` : `${base}/preview/download`;
}

/** The query a download request carries, as it arrived (any of it may be missing or altered). */
export interface LinkQuery {
  tenant: unknown;
  expires: unknown;
  signature: unknown;
}

/** Longest tenant id a link may name: ids are bounded like every request id. */
const TENANT_MAX_LENGTH = 255;

/**
 * Signed, expiring download links: HMAC-SHA256 over (kind, tenant, asset id, expiry) with a key
 * derived from the server's cursor secret, so every process sharing the database agrees and a
 * link never opens another asset, the other kind, or an asset of another tenant. The link names
 * its tenant so the download finds the file by the table's key, on the tenant's shard.
 */
export class DownloadLinks {
  /** A key object, not bytes: Node 24 imports raw key bytes again for every HMAC (~11 µs each). */
  readonly #key: KeyObject;

  constructor(
    secret: string,
    private readonly baseUrl: string,
    private readonly ttlS: number,
  ) {
    // A new derivation label for links that name their tenant: no link made before verifies.
    this.#key = createSecretKey(createHmac('sha256', secret).update('asset-download-links/v2').digest());
  }

  /** The links of a server: keyed by its cursor secret, under BASE_URL, valid ASSET_URL_TTL_S. */
  static forConfig(secret: string, config: Pick<Config, 'baseUrl' | 'assets'>): DownloadLinks {
    return new DownloadLinks(secret, config.baseUrl, config.assets.urlTtlS);
  }

  #signature(tenantId: string, assetId: string, kind: ContentKind, expires: number): Buffer {
    return createHmac('sha256', this.#key).update(`${kind}\n${tenantId}\n${assetId}\n${expires}`).digest();
  }

  /** A link maker for one response: every asset in it gets the same expiry. */
  at(now: Date): (tenantId: string, assetId: string) => AssetLinks {
    const expires = Math.floor(now.getTime() / 1000) + this.ttlS;
    const url = (tenantId: string, assetId: string, kind: ContentKind) => {
      const signature = this.#signature(tenantId, assetId, kind, expires).toString('base64url');
      const tenant = encodeURIComponent(tenantId);
      return `${this.baseUrl}${downloadPath(assetId, kind)}?tenant=${tenant}&expires=${expires}&signature=${signature}`;
    };
    return (tenantId, assetId) => ({
      downloadUrl: url(tenantId, assetId, 'content'),
      previewDownloadUrl: url(tenantId, assetId, 'preview'),
    });
  }

  /**
   * Checks the `tenant`, `expires` (Unix seconds) and `signature` of a request for `assetId`'s
   * `kind`. A valid link answers the tenant it names, which the download then reads under.
   */
  check(assetId: string, kind: ContentKind, query: LinkQuery, now: Date): LinkCheck {
    const { tenant, expires, signature } = query;
    if (
      typeof tenant !== 'string' ||
      tenant.length === 0 ||
      tenant.length > TENANT_MAX_LENGTH ||
      typeof expires !== 'string' ||
      !/^\d{1,12}$/.test(expires) ||
      typeof signature !== 'string'
    )
      return { result: 'forged' };
    const given = Buffer.from(signature, 'base64url');
    const expected = this.#signature(tenant, assetId, kind, Number(expires));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { result: 'forged' };
    return Number(expires) * 1000 < now.getTime()
      ? { result: 'expired' }
      : { result: 'valid', tenantId: tenant };
  }
}
