import { z } from 'zod';
import { MetadataSchema, NewMetadataSchema } from '../common/metadata.js';
import { MAX_SAFE_INTEGER, TimestampSchema } from '../common/primitives.js';

/** Lifecycle states shared by audiences and audience versions. */
export const AudienceStatusSchema = z.enum([
  'archived',
  'cancelled',
  'draft',
  'pending',
  'processing',
  'published',
  'queued',
]);
/** Lifecycle state of an audience or audience version. */
export type AudienceStatus = z.infer<typeof AudienceStatusSchema>;

/** Lifecycle states of an audience version (the same set as {@link AudienceStatusSchema}). */
export const AudienceVersionStatusSchema = AudienceStatusSchema;
/** Lifecycle state of an audience version. */
export type AudienceVersionStatus = AudienceStatus;

const versionFields = {
  versionId: z.string(),
  audienceId: z.string(),
  versionNumber: z.number().int().min(0).max(MAX_SAFE_INTEGER),
  isNewPageAgent: z.boolean(),
  supplementaryContext: z.string().nullable(),
  queueDurationMs: z.number().nullable().describe('Milliseconds the version spent queued.'),
  createdAt: TimestampSchema,
  becameDraftAt: TimestampSchema.nullable(),
  cancelledAt: TimestampSchema.nullable(),
  archivedAt: TimestampSchema.nullable(),
  obsoleteAt: TimestampSchema.nullable(),
  publishedAt: TimestampSchema.nullable(),
  queuedAt: TimestampSchema.nullable(),
};

/** An audience version as embedded in an audience (`latestVersion`, `publishedVersion`): without `status`. */
export const AudienceVersionSummarySchema = z
  .object(versionFields)
  .meta({ id: 'AudienceVersionSummary', description: 'An audience version without its status.' });
/** An audience version without its status. */
export type AudienceVersionSummary = z.infer<typeof AudienceVersionSummarySchema>;

/**
 * An audience version: generated or editable audience state. Lifecycle timestamps are null
 * until the corresponding moment occurs.
 */
export const AudienceVersionSchema = z
  .object({ ...versionFields, status: AudienceVersionStatusSchema })
  .meta({ id: 'AudienceVersion', description: 'Generated or editable audience state.' });
/** An audience version. */
export type AudienceVersion = z.infer<typeof AudienceVersionSchema>;

const audienceFields = {
  audienceId: z.string(),
  pageId: z.string(),
  personId: z.string().nullable(),
  personRouteKey: z.string().nullable(),
  computedName: z.string(),
  customName: z.string().nullable(),
  effectiveName: z.string().describe('customName when set, else computedName.'),
  isNewPageAgent: z.boolean(),
  supplementaryContext: z.string().nullable(),
  actionFormIdOverride: z.string().nullable(),
  actionFormInstructionsOverride: z.string().nullable(),
  actionUrlOverride: z.string().nullable(),
  latestVersion: AudienceVersionSummarySchema.nullable(),
  publishedVersion: AudienceVersionSummarySchema.nullable(),
  effectiveMetadata: MetadataSchema.optional().describe('The page metadata overlaid by metadataOverride.'),
  metadataOverride: MetadataSchema.optional(),
  createdAt: TimestampSchema,
  archivedAt: TimestampSchema.nullable(),
};

/**
 * An audience: a targeted experience belonging to one page. `status` is optional here because the
 * specification requires it only in the restore-audience response; this service always sends it.
 */
export const AudienceSchema = z
  .object({ ...audienceFields, status: AudienceStatusSchema.optional() })
  .meta({ id: 'Audience', description: 'Targeted experience that belongs to one page.' });
/** An audience. */
export type Audience = z.infer<typeof AudienceSchema>;

/** An audience as returned by restore, where `status` is required. */
export const RestoredAudienceSchema = z
  .object({ ...audienceFields, status: AudienceStatusSchema })
  .meta({ id: 'RestoredAudience', description: 'An audience with its status always present.' });
/** An audience as returned by restore. */
export type RestoredAudience = z.infer<typeof RestoredAudienceSchema>;

const optionalText = (max: number) => z.string().min(1).max(max).optional();

const SupplementaryContextSchema = z
  .string()
  .max(100_000)
  .describe("Extra context for the assistant on this audience's page.");

/** Body of `createAudience`; every field is optional. */
export const CreateAudienceBodySchema = z
  .object({
    customName: optionalText(255).describe('Name of the audience; unset: a generated one.'),
    personId: optionalText(255).describe(
      'A person of this tenant (personId from createPerson); an unknown one is 404 NOT_FOUND.',
    ),
    personRouteKey: optionalText(255).describe(
      'Key in the page address that routes a visitor to this audience.',
    ),
    supplementaryContext: SupplementaryContextSchema.optional(),
    isNewPageAgent: z.boolean().optional().describe('Whether the audience uses the new page assistant.'),
    actionFormIdOverride: optionalText(255).describe(
      "Form id replacing the page's action form for this audience; unset: keep it.",
    ),
    actionFormInstructionsOverride: z
      .string()
      .max(10_000)
      .optional()
      .describe("Instructions replacing the action form's for this audience; unset: keep them."),
    actionUrlOverride: z
      .url()
      .max(2048)
      .optional()
      .describe("Address replacing the page's action address for this audience; unset: keep it."),
    metadataOverride: NewMetadataSchema.optional().describe(
      "Search and sharing metadata of this audience, replacing the page's.",
    ),
  })
  .strict()
  .meta({ id: 'CreateAudienceRequest' });
/** Body of `createAudience`. */
export type CreateAudienceBody = z.input<typeof CreateAudienceBodySchema>;

/** Body of `createAudienceVersion`. */
export const CreateAudienceVersionBodySchema = z
  .object({ supplementaryContext: SupplementaryContextSchema.optional() })
  .strict()
  .meta({ id: 'CreateAudienceVersionRequest' });
/** Body of `createAudienceVersion`. */
export type CreateAudienceVersionBody = z.input<typeof CreateAudienceVersionBodySchema>;
