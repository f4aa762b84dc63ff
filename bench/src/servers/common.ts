// What every comparison server of scenario 1 shares with ours: the same SQL for
// `GET /v0/pages?limit=20` (a keyset page plus the maintained counter), the same JSON and the
// same API-key check (SHA-256 of the key, looked up once and cached, as the server's cache does).
import { createHash } from 'node:crypto';
import type { Page } from '@customer-api/contract';
import { CursorCodec } from '@customer-api/server/internals';
import pg from 'pg';

/** A row of the `pages` table, as node-postgres reads it. */
export interface PageRow {
  id: string;
  name: string;
  title: string;
  page_context: Page['pageContext'];
  brand_id: Page['brandId'];
  page_type: Page['pageType'];
  status: Page['status'];
  audiences_count: Page['audiencesCount'];
  actions: Page['actions'];
  action_card_widgets: Page['actionCardWidgets'];
  footer_links: Page['footerLinks'];
  scripts: Page['scripts'];
  header_action_id: string | null;
  metadata: Page['metadata'] | null;
  created_at: Date;
  updated_at: Date;
  archived_at: Date | null;
  deleted_at: Date | null;
}

/** A page of pages, as `GET /v0/pages` answers it. */
export interface PagesPage {
  items: Page[];
  hasMore: boolean;
  nextCursor: string | null;
  totalCount: number;
}

/** What a comparison server needs of the database. */
export interface Pages {
  db: pg.Pool;
  tenantOf(apiKey: string | undefined): Promise<string | undefined>;
  listPages(tenantId: string, limit: number): Promise<PagesPage>;
}

/** Opens the pool (10 connections, like the server) and loads what a request needs. */
export async function openPages(databaseUrl: string | undefined): Promise<Pages> {
  const db = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  const { rows } = await db.query<{ value: string }>(
    `SELECT value FROM server_settings WHERE name = 'cursor_hmac_key'`,
  );
  const cursors = new CursorCodec(rows[0]?.value ?? '');
  const keys = new Map<string, string | undefined>();

  async function tenantOf(apiKey: string | undefined): Promise<string | undefined> {
    if (!apiKey) return undefined;
    const hash = createHash('sha256').update(apiKey, 'utf8').digest('hex');
    if (!keys.has(hash)) {
      const found = await db.query<{ tenant_id: string }>(
        'SELECT tenant_id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
        [hash],
      );
      keys.set(hash, found.rows[0]?.tenant_id);
    }
    return keys.get(hash);
  }

  async function listPages(tenantId: string, limit: number): Promise<PagesPage> {
    const [page, counter] = await Promise.all([
      db.query<PageRow>(
        `SELECT * FROM pages WHERE tenant_id = $1 AND deleted_at IS NULL
         ORDER BY created_at DESC, id DESC LIMIT $2`,
        [tenantId, limit + 1],
      ),
      db.query<{ count: string }>(
        `SELECT count FROM tenant_counters WHERE tenant_id = $1 AND scope = 'pages'`,
        [tenantId],
      ),
    ]);
    const hasMore = page.rows.length > limit;
    const rows = page.rows.slice(0, limit);
    const last = rows.at(-1);
    const binding = { tenantId, operation: 'listPages' };
    return {
      items: rows.map(toApiPage),
      hasMore,
      nextCursor:
        hasMore && last ? cursors.encode(binding, { createdAt: last.created_at, id: last.id }) : null,
      totalCount: Number(counter.rows[0]?.count ?? 0),
    };
  }

  return { db, tenantOf, listPages };
}

const isoOrNull = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** A page row in the API's shape (what the server's `toApiPage` returns). */
export function toApiPage(row: PageRow): Page {
  return {
    pageId: row.id,
    name: row.name,
    title: row.title,
    pageContext: row.page_context,
    brandId: row.brand_id,
    pageType: row.page_type,
    status: row.status,
    audiencesCount: row.audiences_count,
    actions: row.actions,
    actionCardWidgets: row.action_card_widgets,
    footerLinks: row.footer_links,
    scripts: row.scripts,
    ...(row.header_action_id === null ? {} : { headerActionId: row.header_action_id }),
    ...(row.metadata === null ? {} : { metadata: row.metadata }),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    archivedAt: isoOrNull(row.archived_at),
    deletedAt: isoOrNull(row.deleted_at),
  };
}

/** Port and database from the environment (PORT, DATABASE_URL); the parent picks both. */
export const env = (): { port: number; databaseUrl: string | undefined } => ({
  port: Number(process.env.PORT),
  databaseUrl: process.env.DATABASE_URL,
});

/** Exits cleanly on SIGTERM, like the real server. */
export function onTerm(close: () => unknown): void {
  process.once('SIGTERM', () => {
    Promise.resolve(close()).finally(() => process.exit(0));
  });
}
