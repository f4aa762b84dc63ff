import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../../config.js';

/** What a link serves: the uploaded content, or its preview (falling back to the content). */
export type ContentKind = 'content' | 'preview';

/** The two addresses every Asset carries. */
export interface AssetLinks {
  downloadUrl: string;
  previewDownloadUrl: string;
}

/** Outcome of checking a link's query parameters. */
export type LinkCheck = 'valid' | 'expired' | 'forged';

/** Path of an asset's download route (`/v0/assets/{id}/download` or `…/preview/download`). */
export function downloadPath(assetId: string, kind: ContentKind): string {
  const base = `/v0/assets/${encodeURIComponent(assetId)}`;
  return kind === 'content' ? `${base}/download` : `${base}/preview/download`;
}

/**
 * Signed, expiring download links: HMAC-SHA256 over (kind, asset id, expiry) with a key
 * derived from the server's cursor secret, so every process sharing the database agrees and a
 * link never opens another asset or the other kind.
 */
export class DownloadLinks {
  /** A key object, not bytes: Node 24 imports raw key bytes again for every HMAC (~11 µs each). */
  readonly #key: KeyObject;

  constructor(
    secret: string,
    private readonly baseUrl: string,
    private readonly ttlS: number,
  ) {
    this.#key = createSecretKey(createHmac('sha256', secret).update('asset-download-links/v1').digest());
  }

  /** The links of a server: keyed by its cursor secret, under BASE_URL, valid ASSET_URL_TTL_S. */
  static forConfig(secret: string, config: Pick<Config, 'baseUrl' | 'assets'>): DownloadLinks {
    return new DownloadLinks(secret, config.baseUrl, config.assets.urlTtlS);
  }

  #signature(assetId: string, kind: ContentKind, expires: number): Buffer {
    return createHmac('sha256', this.#key).update(`${kind}\n${assetId}\n${expires}`).digest();
  }

  /** A link maker for one response: every asset in it gets the same expiry. */
  at(now: Date): (assetId: string) => AssetLinks {
    const expires = Math.floor(now.getTime() / 1000) + this.ttlS;
    const url = (assetId: string, kind: ContentKind) => {
      const signature = this.#signature(assetId, kind, expires).toString('base64url');
      return `${this.baseUrl}${downloadPath(assetId, kind)}?expires=${expires}&signature=${signature}`;
    };
    return (assetId) => ({
      downloadUrl: url(assetId, 'content'),
      previewDownloadUrl: url(assetId, 'preview'),
    });
  }

  /** Checks `expires` (Unix seconds) and `signature` of a request for `assetId`'s `kind`. */
  check(assetId: string, kind: ContentKind, expires: unknown, signature: unknown, now: Date): LinkCheck {
    if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires) || typeof signature !== 'string')
      return 'forged';
    const given = Buffer.from(signature, 'base64url');
    const expected = this.#signature(assetId, kind, Number(expires));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'forged';
    return Number(expires) * 1000 < now.getTime() ? 'expired' : 'valid';
  }
}
