import { describe, expect, it } from 'vitest';
import {
  AudienceSchema,
  AudienceStatusSchema,
  AudienceVersionSchema,
  AudienceVersionSummarySchema,
  RestoredAudienceSchema,
} from './audiences.schemas.js';

const at = '2026-01-01T00:00:00.000Z';
const summary = {
  versionId: 'version_1',
  audienceId: 'audience_1',
  versionNumber: 1,
  isNewPageAgent: false,
  supplementaryContext: null,
  queueDurationMs: null,
  createdAt: at,
  becameDraftAt: null,
  cancelledAt: null,
  archivedAt: null,
  obsoleteAt: null,
  publishedAt: null,
  queuedAt: null,
};
const audience = {
  audienceId: 'audience_1',
  pageId: 'page_1',
  personId: null,
  personRouteKey: null,
  computedName: 'Audience 1',
  customName: null,
  effectiveName: 'Audience 1',
  isNewPageAgent: false,
  supplementaryContext: null,
  actionFormIdOverride: null,
  actionFormInstructionsOverride: null,
  actionUrlOverride: null,
  latestVersion: null,
  publishedVersion: null,
  createdAt: at,
  archivedAt: null,
};

describe('audience versions', () => {
  it('have the seven specification statuses', () => {
    expect(AudienceStatusSchema.options.sort()).toEqual(
      ['archived', 'cancelled', 'draft', 'pending', 'processing', 'published', 'queued'].sort(),
    );
  });

  it('require status on the single-version resource but not in summaries', () => {
    expect(AudienceVersionSchema.safeParse(summary).success).toBe(false);
    expect(AudienceVersionSchema.safeParse({ ...summary, status: 'draft' }).success).toBe(true);
    expect(AudienceVersionSchema.safeParse({ ...summary, status: 'live' }).success).toBe(false);
    expect(AudienceVersionSummarySchema.parse({ ...summary, status: 'draft' })).not.toHaveProperty('status');
  });

  it('require every lifecycle timestamp, present and nullable', () => {
    for (const key of [
      'becameDraftAt',
      'cancelledAt',
      'archivedAt',
      'obsoleteAt',
      'publishedAt',
      'queuedAt',
    ]) {
      const { [key]: _dropped, ...rest } = summary as Record<string, unknown>;
      expect(AudienceVersionSummarySchema.safeParse(rest).success, key).toBe(false);
      expect(AudienceVersionSummarySchema.safeParse({ ...summary, [key]: at }).success, key).toBe(true);
    }
  });

  it('bound versionNumber to integers up to 2^53-1', () => {
    expect(AudienceVersionSummarySchema.safeParse({ ...summary, versionNumber: 2 ** 53 - 1 }).success).toBe(
      true,
    );
    expect(AudienceVersionSummarySchema.safeParse({ ...summary, versionNumber: 2 ** 53 }).success).toBe(
      false,
    );
    expect(AudienceVersionSummarySchema.safeParse({ ...summary, versionNumber: 1.5 }).success).toBe(false);
  });
});

describe('audiences', () => {
  it('accept nullable fields as null and require them to be present', () => {
    expect(AudienceSchema.safeParse(audience).success).toBe(true);
    for (const key of Object.keys(audience)) {
      const { [key]: _dropped, ...rest } = audience as Record<string, unknown>;
      expect(AudienceSchema.safeParse(rest).success, key).toBe(false);
    }
  });

  it('embed versions without status and require status only when restored', () => {
    const withVersions = { ...audience, latestVersion: summary, publishedVersion: summary };
    expect(AudienceSchema.safeParse(withVersions).success).toBe(true);
    expect(RestoredAudienceSchema.safeParse(withVersions).success).toBe(false);
    expect(RestoredAudienceSchema.safeParse({ ...withVersions, status: 'published' }).success).toBe(true);
  });
});
