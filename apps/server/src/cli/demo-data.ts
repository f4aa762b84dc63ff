import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { CURSOR_SECRET_SETTING } from '../db/migrate.js';
import { ensureSetting, readSetting } from '../db/settings.js';
import { systemClock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { CursorCodec } from '../lib/pagination.js';
import { DownloadLinks } from '../modules/assets/content/links.js';
import { createAudience } from '../modules/audiences/audiences.service.js';
import { createAudienceVersion, publishAudienceVersion } from '../modules/audiences/versions.service.js';
import { createAudienceMessage } from '../modules/messages/messages.service.js';
import { createPage } from '../modules/pages/pages.service.js';
import type { ServiceDeps } from '../modules/types.js';
import { openSecretBox } from '../secrets/keyring.js';
import { createApiKey, ensureTenant } from '../tenants/tenants.service.js';

/** Name of the setting marking that the first-run demo exists. */
const DEMO_SETTING = 'demo_created';

/** The services' dependencies, on the database's handle of no tenant (the CLI's). */
async function depsFor(database: Database, config: Config): Promise<ServiceDeps> {
  const secret = await readSetting(database.db, CURSOR_SECRET_SETTING);
  if (!secret) throw new Error('database not migrated');
  return {
    db: database.db,
    clock: systemClock,
    ids: newId,
    cursors: new CursorCodec(secret),
    downloadLinks: DownloadLinks.forConfig(secret, config),
    secrets: openSecretBox(config),
    config,
  };
}

/** Adds demo pages (with audiences, versions and a conversation) to a tenant; returns the number of pages. */
export async function seedDemoData(database: Database, config: Config, tenantId: string): Promise<number> {
  const deps = await depsFor(database, config);
  const pages = [
    { name: 'Inbound demo', title: 'Welcome to Acme', pageType: 'inbound' as const },
    { name: 'Outbound campaign', title: 'Acme for logistics teams', pageType: 'outbound' as const },
    { name: 'Sales deck', title: 'Acme platform overview', pageType: 'sales_deck' as const },
  ];
  for (const page of pages) {
    const { pageId } = await createPage(deps, tenantId, {
      ...page,
      pageContext: `${page.title}: a demo page created on first start.`,
      brandId: 'brand_acme',
      metadata: { title: page.title, description: `${page.name} page`, keywords: ['acme', 'demo'] },
    });
    await seedAudiences(deps, tenantId, pageId);
  }
  return pages.length;
}

/** Two audiences per page: one with a published and a draft version and a conversation. */
async function seedAudiences(deps: ServiceDeps, tenantId: string, pageId: string): Promise<void> {
  const { audienceId } = await createAudience(deps, tenantId, pageId, {
    customName: 'Logistics leads',
    supplementaryContext: 'Visitors from logistics companies.',
  });
  await createAudience(deps, tenantId, pageId, { personRouteKey: 'jane-doe' });
  const v1 = await createAudienceVersion(deps, tenantId, pageId, audienceId, {});
  await publishAudienceVersion(deps, tenantId, pageId, audienceId, v1.versionId);
  await createAudienceVersion(deps, tenantId, pageId, audienceId, {
    supplementaryContext: 'Visitors from logistics and freight companies.',
  });
  await createAudienceMessage(deps, tenantId, pageId, audienceId, {
    role: 'user',
    content: 'Focus the page on freight forwarders.',
  });
  await createAudienceMessage(deps, tenantId, pageId, audienceId, {
    role: 'assistant',
    content: 'I updated the context and the title.',
    changes: [
      { field: 'supplementaryContext', newValue: 'Freight forwarders evaluating Acme.', status: 'applied' },
      { field: 'metaTitle', newValue: 'Acme for freight forwarders', status: 'applied' },
      { field: 'metaDescription', newValue: 'Ship faster with Acme.', status: 'saved' },
    ],
    contentParts: [{ type: 'text', text: 'I updated the context and the title.' }],
  });
}

/**
 * First run only: creates the demo tenant, its key and demo data, and returns the key. Later runs
 * return no key (keys are stored hashed; the first one cannot be shown again).
 */
export async function ensureDemo(
  database: Database,
  config: Config,
): Promise<{ apiKey: string | undefined }> {
  const marker = newId('tenant');
  const stored = await ensureSetting(database.db, DEMO_SETTING, () => marker);
  if (stored !== marker) return { apiKey: undefined };
  const deps = { db: database.db, clock: systemClock, ids: newId };
  const { tenantId } = await ensureTenant(deps, 'demo');
  const { apiKey } = await createApiKey(deps, { tenantId, scopes: ['read', 'write'] });
  await seedDemoData(database, config, tenantId);
  return { apiKey };
}
