import { z } from 'zod';
import { ITEM_BOUNDS, TEXT_BOUNDS } from '../common/bounds.js';
import { MetadataSchema, NewMetadataSchema } from '../common/metadata.js';
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

const text = (kind: keyof typeof TEXT_BOUNDS) => z.string().max(TEXT_BOUNDS[kind]);
const parts = <T extends z.ZodType>(item: T) => z.array(item).max(ITEM_BOUNDS.parts);

/** A call to action as a request sends it: {@link ActionSchema} with bounded fields. */
export const NewActionSchema = z
  .object({
    actionId: text('id').describe('Id of the action, unique on the page.'),
    actionIndex: z.number().describe('Position of the action, from 0.'),
    purpose: text('shortText').describe('What the action is for.'),
    buttonTitle: text('name').describe("Text of the action's button."),
    actionType: text('token').describe('Kind of action, e.g. link or form.'),
    url: text('url').describe('Address the action opens.'),
  })
  .strict()
  .meta({ id: 'NewAction' });

/** A card widget as a request sends it: {@link ActionCardWidgetSchema} with bounded fields. */
export const NewActionCardWidgetSchema = z
  .object({
    type: text('token').describe('Kind of card.'),
    title: text('title').describe('Title of the card.'),
    logos: parts(
      z
        .object({
          image: z
            .object({
              altText: text('shortText').describe('Text describing the image for screen readers.'),
              url: text('url').describe('Address of the image.'),
              fileId: text('id').describe('The image as an uploaded file id.'),
              assetId: text('id').describe('The image as an asset (assetId from createAsset).'),
            })
            .strict()
            .describe('The logo image.'),
        })
        .strict(),
    ).describe('Logos shown on the card.'),
  })
  .strict()
  .meta({ id: 'NewActionCardWidget' });

/** A footer link group as a request sends it: {@link FooterLinkGroupSchema} with bounded fields. */
export const NewFooterLinkGroupSchema = z
  .object({
    id: text('id').describe('Id of the link group.'),
    title: text('title').describe('Heading of the link group.'),
    links: parts(
      z
        .object({
          text: text('name').describe('Text of the link.'),
          url: text('url').describe('Address the link opens.'),
          id: text('id').describe('Id of the link.'),
        })
        .strict(),
    ).describe('Links of the group.'),
  })
  .strict()
  .meta({ id: 'NewFooterLinkGroup' });

/** A script as a request sends it: {@link ScriptSchema} with bounded fields. */
export const NewScriptSchema = z
  .object({
    content: text('longText').describe('Source of the script.'),
    enabled: z.boolean().describe('Whether the script runs.'),
    name: text('name').describe('Name of the script.'),
    description: text('shortText').describe('What the script does.'),
  })
  .strict()
  .meta({ id: 'NewScript' });

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
    name: z.string().min(1).max(TEXT_BOUNDS.name).describe('Internal name of the page.'),
    title: z.string().min(1).max(TEXT_BOUNDS.title).describe('Title shown on the page.'),
    pageContext: text('longText').describe('What the page is about: the context its assistant answers from.'),
    brandId: z.string().min(1).max(TEXT_BOUNDS.id).describe('Id of the brand the page belongs to.'),
    pageType: PageTypeSchema.describe('Kind of page, e.g. inbound.'),
    actions: parts(NewActionSchema).optional().describe('Calls to action offered on the page.'),
    actionCardWidgets: parts(NewActionCardWidgetSchema)
      .optional()
      .describe('Cards shown beside the actions.'),
    footerLinks: parts(NewFooterLinkGroupSchema).optional().describe('Groups of links in the page footer.'),
    scripts: parts(NewScriptSchema).optional().describe('Scripts embedded in the page.'),
    headerActionId: z
      .string()
      .min(1)
      .max(TEXT_BOUNDS.id)
      .optional()
      .describe('actionId of the action shown in the page header.'),
    metadata: NewMetadataSchema.optional().describe('Search and sharing metadata of the page.'),
  })
  .strict()
  .meta({ id: 'CreatePageRequest' });
/** Body of `createPage`. */
export type CreatePageBody = z.input<typeof CreatePageBodySchema>;
