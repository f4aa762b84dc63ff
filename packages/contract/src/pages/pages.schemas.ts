import { z } from 'zod';
import { MetadataSchema } from '../common/metadata.js';
import { CountSchema, TimestampSchema } from '../common/primitives.js';

/** Kinds of page. */
export const PageTypeSchema = z.enum(['inbound', 'outbound', 'call_followup', 'sales_deck', 'custom']);
/** Kind of page. */
export type PageType = z.infer<typeof PageTypeSchema>;

/** Page lifecycle states. */
export const PageStatusSchema = z.enum(['archived', 'draft', 'published']);
/** Page lifecycle state. */
export type PageStatus = z.infer<typeof PageStatusSchema>;

/** A call to action shown on a page. */
export const ActionSchema = z
  .object({
    actionId: z.string(),
    actionIndex: z.number(),
    purpose: z.string(),
    buttonTitle: z.string(),
    actionType: z.string(),
    url: z.string(),
  })
  .strict()
  .meta({ id: 'Action' });
/** A call to action shown on a page. */
export type Action = z.infer<typeof ActionSchema>;

/** A card widget with logos. */
export const ActionCardWidgetSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    logos: z.array(
      z
        .object({
          image: z
            .object({ altText: z.string(), url: z.string(), fileId: z.string(), assetId: z.string() })
            .strict(),
        })
        .strict(),
    ),
  })
  .strict()
  .meta({ id: 'ActionCardWidget' });
/** A card widget with logos. */
export type ActionCardWidget = z.infer<typeof ActionCardWidgetSchema>;

/** A titled group of footer links. */
export const FooterLinkGroupSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    links: z.array(z.object({ text: z.string(), url: z.string(), id: z.string() }).strict()),
  })
  .strict()
  .meta({ id: 'FooterLinkGroup' });
/** A titled group of footer links. */
export type FooterLinkGroup = z.infer<typeof FooterLinkGroupSchema>;

/** A script embedded in a page. */
export const ScriptSchema = z
  .object({ content: z.string(), enabled: z.boolean(), name: z.string(), description: z.string() })
  .strict()
  .meta({ id: 'Script' });
/** A script embedded in a page. */
export type Script = z.infer<typeof ScriptSchema>;

const pageFields = {
  pageId: z.string(),
  name: z.string(),
  title: z.string(),
  pageContext: z.string(),
  brandId: z.string(),
  audiencesCount: CountSchema,
  actions: z.array(ActionSchema),
  actionCardWidgets: z.array(ActionCardWidgetSchema),
  footerLinks: z.array(FooterLinkGroupSchema).optional(),
  scripts: z.array(ScriptSchema),
  headerActionId: z.string().optional(),
  metadata: MetadataSchema.optional(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
  archivedAt: TimestampSchema.nullable(),
  deletedAt: TimestampSchema.nullable(),
};

/**
 * A page: the top-level customer experience container. `pageType` and `status` are optional here
 * because the specification requires them only in the restore-page response ({@link RestoredPageSchema});
 * this service always sends them.
 */
export const PageSchema = z
  .object({ ...pageFields, pageType: PageTypeSchema.optional(), status: PageStatusSchema.optional() })
  .meta({ id: 'Page', description: 'Top-level customer experience container.' });
/** A page. */
export type Page = z.infer<typeof PageSchema>;

/** A page as returned by restore, where `pageType` and `status` are required. */
export const RestoredPageSchema = z
  .object({ ...pageFields, pageType: PageTypeSchema, status: PageStatusSchema })
  .meta({ id: 'RestoredPage', description: 'A page with pageType and status always present.' });
/** A page as returned by restore. */
export type RestoredPage = z.infer<typeof RestoredPageSchema>;

/** Body of `createPage`. The page starts as a `draft`. */
export const CreatePageBodySchema = z
  .object({
    name: z.string().min(1).max(255),
    title: z.string().min(1).max(500),
    pageContext: z.string().max(100_000),
    brandId: z.string().min(1).max(255),
    pageType: PageTypeSchema,
    actions: z.array(ActionSchema).max(100).optional(),
    actionCardWidgets: z.array(ActionCardWidgetSchema).max(100).optional(),
    footerLinks: z.array(FooterLinkGroupSchema).max(100).optional(),
    scripts: z.array(ScriptSchema).max(100).optional(),
    headerActionId: z.string().min(1).optional(),
    metadata: MetadataSchema.optional(),
  })
  .strict()
  .meta({ id: 'CreatePageRequest' });
/** Body of `createPage`. */
export type CreatePageBody = z.input<typeof CreatePageBodySchema>;
