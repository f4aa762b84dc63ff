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

/** What each field of a page's parts says, once for the response and the request form. */
const TEXT = {
  actionId: 'Id of the action, unique on the page.',
  actionIndex: 'Position of the action, from 0.',
  actionPurpose: 'What the action is for.',
  buttonTitle: "Text of the action's button.",
  actionType: 'Kind of action, e.g. link or form.',
  actionUrl: 'Address the action opens.',
  cardType: 'Kind of card.',
  cardTitle: 'Title of the card.',
  logos: 'Logos shown on the card.',
  image: 'The logo image.',
  altText: 'Text describing the image for screen readers.',
  imageUrl: 'Address of the image.',
  imageFileId: 'The image as an uploaded file id.',
  imageAssetId: 'The image as an asset (assetId from createAsset).',
  groupId: 'Id of the link group.',
  groupTitle: 'Heading of the link group.',
  links: 'Links of the group.',
  linkText: 'Text of the link.',
  linkUrl: 'Address the link opens.',
  linkId: 'Id of the link.',
  scriptContent: 'Source of the script.',
  scriptEnabled: 'Whether the script runs.',
  scriptName: 'Name of the script.',
  scriptDescription: 'What the script does.',
} as const;

/** A call to action shown on a page. */
export const ActionSchema = z
  .object({
    actionId: z.string().describe(TEXT.actionId),
    actionIndex: z.number().describe(TEXT.actionIndex),
    purpose: z.string().describe(TEXT.actionPurpose),
    buttonTitle: z.string().describe(TEXT.buttonTitle),
    actionType: z.string().describe(TEXT.actionType),
    url: z.string().describe(TEXT.actionUrl),
  })
  .strict()
  .meta({ id: 'Action' });
/** A call to action shown on a page. */
export type Action = z.infer<typeof ActionSchema>;

/** A card widget with logos. */
export const ActionCardWidgetSchema = z
  .object({
    type: z.string().describe(TEXT.cardType),
    title: z.string().describe(TEXT.cardTitle),
    logos: z
      .array(
        z
          .object({
            image: z
              .object({
                altText: z.string().describe(TEXT.altText),
                url: z.string().describe(TEXT.imageUrl),
                fileId: z.string().describe(TEXT.imageFileId),
                assetId: z.string().describe(TEXT.imageAssetId),
              })
              .strict()
              .describe(TEXT.image),
          })
          .strict(),
      )
      .describe(TEXT.logos),
  })
  .strict()
  .meta({ id: 'ActionCardWidget' });
/** A card widget with logos. */
export type ActionCardWidget = z.infer<typeof ActionCardWidgetSchema>;

/** A titled group of footer links. */
export const FooterLinkGroupSchema = z
  .object({
    id: z.string().describe(TEXT.groupId),
    title: z.string().describe(TEXT.groupTitle),
    links: z
      .array(
        z
          .object({
            text: z.string().describe(TEXT.linkText),
            url: z.string().describe(TEXT.linkUrl),
            id: z.string().describe(TEXT.linkId),
          })
          .strict(),
      )
      .describe(TEXT.links),
  })
  .strict()
  .meta({ id: 'FooterLinkGroup' });
/** A titled group of footer links. */
export type FooterLinkGroup = z.infer<typeof FooterLinkGroupSchema>;

/** A script embedded in a page. */
export const ScriptSchema = z
  .object({
    content: z.string().describe(TEXT.scriptContent),
    enabled: z.boolean().describe(TEXT.scriptEnabled),
    name: z.string().describe(TEXT.scriptName),
    description: z.string().describe(TEXT.scriptDescription),
  })
  .strict()
  .meta({ id: 'Script' });
/** A script embedded in a page. */
export type Script = z.infer<typeof ScriptSchema>;

const text = (kind: keyof typeof TEXT_BOUNDS) => z.string().max(TEXT_BOUNDS[kind]);
const parts = <T extends z.ZodType>(item: T) => z.array(item).max(ITEM_BOUNDS.parts);

/** A call to action as a request sends it: {@link ActionSchema} with bounded fields. */
export const NewActionSchema = z
  .object({
    actionId: text('id').describe(TEXT.actionId),
    actionIndex: z.number().describe(TEXT.actionIndex),
    purpose: text('shortText').describe(TEXT.actionPurpose),
    buttonTitle: text('name').describe(TEXT.buttonTitle),
    actionType: text('token').describe(TEXT.actionType),
    url: text('url').describe(TEXT.actionUrl),
  })
  .strict()
  .meta({ id: 'NewAction' });

/** A card widget as a request sends it: {@link ActionCardWidgetSchema} with bounded fields. */
export const NewActionCardWidgetSchema = z
  .object({
    type: text('token').describe(TEXT.cardType),
    title: text('title').describe(TEXT.cardTitle),
    logos: parts(
      z
        .object({
          image: z
            .object({
              altText: text('shortText').describe(TEXT.altText),
              url: text('url').describe(TEXT.imageUrl),
              fileId: text('id').describe(TEXT.imageFileId),
              assetId: text('id').describe(TEXT.imageAssetId),
            })
            .strict()
            .describe(TEXT.image),
        })
        .strict(),
    ).describe(TEXT.logos),
  })
  .strict()
  .meta({ id: 'NewActionCardWidget' });

/** A footer link group as a request sends it: {@link FooterLinkGroupSchema} with bounded fields. */
export const NewFooterLinkGroupSchema = z
  .object({
    id: text('id').describe(TEXT.groupId),
    title: text('title').describe(TEXT.groupTitle),
    links: parts(
      z
        .object({
          text: text('name').describe(TEXT.linkText),
          url: text('url').describe(TEXT.linkUrl),
          id: text('id').describe(TEXT.linkId),
        })
        .strict(),
    ).describe(TEXT.links),
  })
  .strict()
  .meta({ id: 'NewFooterLinkGroup' });

/** A script as a request sends it: {@link ScriptSchema} with bounded fields. */
export const NewScriptSchema = z
  .object({
    content: text('longText').describe(TEXT.scriptContent),
    enabled: z.boolean().describe(TEXT.scriptEnabled),
    name: text('name').describe(TEXT.scriptName),
    description: text('shortText').describe(TEXT.scriptDescription),
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
