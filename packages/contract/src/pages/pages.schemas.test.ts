import { describe, expect, it } from 'vitest';
import {
  CreatePageBodySchema,
  PageSchema,
  PageStatusSchema,
  PageTypeSchema,
  RestoredPageSchema,
} from './pages.schemas.js';

const at = '2026-01-01T00:00:00.000Z';
const page = {
  pageId: 'page_1',
  name: 'Home',
  title: 'Welcome',
  pageContext: 'ctx',
  brandId: 'brand_1',
  audiencesCount: 0,
  actions: [],
  actionCardWidgets: [],
  scripts: [],
  createdAt: at,
  updatedAt: at,
  archivedAt: null,
  deletedAt: null,
};

describe('pages', () => {
  it('have exactly the specification page types and statuses', () => {
    expect(PageTypeSchema.options).toEqual(['inbound', 'outbound', 'call_followup', 'sales_deck', 'custom']);
    expect(PageStatusSchema.options).toEqual(['archived', 'draft', 'published']);
  });

  it('need pageType and status only in the restore response', () => {
    expect(PageSchema.safeParse(page).success).toBe(true);
    expect(RestoredPageSchema.safeParse(page).success).toBe(false);
    expect(RestoredPageSchema.safeParse({ ...page, pageType: 'inbound', status: 'draft' }).success).toBe(
      true,
    );
    expect(PageSchema.safeParse({ ...page, status: 'deleted' }).success).toBe(false);
    expect(PageSchema.safeParse({ ...page, pageType: 'landing' }).success).toBe(false);
  });

  it('require every required field, with archivedAt and deletedAt present even when null', () => {
    for (const key of Object.keys(page)) {
      const { [key]: _dropped, ...rest } = page as Record<string, unknown>;
      expect(PageSchema.safeParse(rest).success, key).toBe(false);
    }
    expect(PageSchema.safeParse({ ...page, archivedAt: at, deletedAt: at }).success).toBe(true);
  });

  it('bound audiencesCount to 0..2^53-1', () => {
    expect(PageSchema.safeParse({ ...page, audiencesCount: -1 }).success).toBe(false);
    expect(PageSchema.safeParse({ ...page, audiencesCount: 2 ** 53 }).success).toBe(false);
  });

  it('check nested actions, widgets, footer links and scripts', () => {
    const action = {
      actionId: 'a',
      actionIndex: 0,
      purpose: 'p',
      buttonTitle: 'b',
      actionType: 't',
      url: 'u',
    };
    const widget = {
      type: 'logos',
      title: 't',
      logos: [{ image: { altText: 'a', url: 'u', fileId: 'f', assetId: 'x' } }],
    };
    const footer = { id: 'f', title: 't', links: [{ text: 't', url: 'u', id: 'l' }] };
    const script = { content: 'c', enabled: true, name: 'n', description: 'd' };
    const full = {
      ...page,
      actions: [action],
      actionCardWidgets: [widget],
      footerLinks: [footer],
      scripts: [script],
    };
    expect(PageSchema.safeParse(full).success).toBe(true);
    expect(PageSchema.safeParse({ ...full, actions: [{ ...action, actionIndex: '0' }] }).success).toBe(false);
    expect(PageSchema.safeParse({ ...full, scripts: [{ ...script, enabled: 'yes' }] }).success).toBe(false);
  });

  it('create body needs name, title, pageContext, brandId and a known pageType', () => {
    const body = { name: 'n', title: 't', pageContext: 'c', brandId: 'b', pageType: 'custom' };
    expect(CreatePageBodySchema.safeParse(body).success).toBe(true);
    for (const key of Object.keys(body)) {
      const { [key]: _dropped, ...rest } = body as Record<string, unknown>;
      expect(CreatePageBodySchema.safeParse(rest).success, key).toBe(false);
    }
    expect(CreatePageBodySchema.safeParse({ ...body, status: 'published' }).success).toBe(false);
  });
});
