import { z } from 'zod';
import { ITEM_BOUNDS, TEXT_BOUNDS } from './bounds.js';

/** What each metadata field is for, said once for the response and the request form. */
const FIELD = {
  title: 'Title for search engines.',
  description: 'Description for search engines.',
  keywords: 'Keywords for search engines.',
  author: 'Author named in the metadata.',
  robots: 'Robots directives, e.g. noindex, nofollow.',
  canonicalUrl: 'Canonical address of the page.',
  ogTitle: 'Open Graph title (link previews).',
  ogDescription: 'Open Graph description.',
  ogImageUrl: 'Open Graph image address.',
  ogImageFileId: 'Open Graph image as an uploaded file id.',
  ogImageAlt: 'Text describing the Open Graph image.',
  ogSiteName: 'Open Graph site name.',
  ogUrl: 'Open Graph address of the page.',
  twitterTitle: 'Title of X (Twitter) cards.',
  twitterDescription: 'Description of X (Twitter) cards.',
  twitterImageUrl: 'Image address of X (Twitter) cards.',
  twitterImageFileId: 'Image of X (Twitter) cards as an uploaded file id.',
  twitterImageAlt: 'Text describing the X (Twitter) card image.',
  twitterSite: 'X (Twitter) handle of the site.',
  twitterCreator: 'X (Twitter) handle of the author.',
  themeColor: 'Browser theme color, e.g. #336699.',
} as const;

/**
 * Page metadata (also an audience's `effectiveMetadata` and `metadataOverride`).
 * The specification does not say which fields are required, so every field is optional;
 * `robots` holds strings such as `noindex`.
 */
export const MetadataSchema = z
  .object({
    title: z.string().describe(FIELD.title),
    description: z.string().describe(FIELD.description),
    keywords: z.array(z.string()).describe(FIELD.keywords),
    author: z.string().describe(FIELD.author),
    robots: z.array(z.string()).describe(FIELD.robots),
    canonicalUrl: z.string().describe(FIELD.canonicalUrl),
    ogTitle: z.string().describe(FIELD.ogTitle),
    ogDescription: z.string().describe(FIELD.ogDescription),
    ogImageUrl: z.string().describe(FIELD.ogImageUrl),
    ogImageFileId: z.string().describe(FIELD.ogImageFileId),
    ogImageAlt: z.string().describe(FIELD.ogImageAlt),
    ogSiteName: z.string().describe(FIELD.ogSiteName),
    ogUrl: z.string().describe(FIELD.ogUrl),
    twitterTitle: z.string().describe(FIELD.twitterTitle),
    twitterDescription: z.string().describe(FIELD.twitterDescription),
    twitterImageUrl: z.string().describe(FIELD.twitterImageUrl),
    twitterImageFileId: z.string().describe(FIELD.twitterImageFileId),
    twitterImageAlt: z.string().describe(FIELD.twitterImageAlt),
    twitterSite: z.string().describe(FIELD.twitterSite),
    twitterCreator: z.string().describe(FIELD.twitterCreator),
    themeColor: z.string().describe(FIELD.themeColor),
  })
  .partial()
  .strict()
  .meta({ id: 'Metadata', description: 'Page metadata; every field is optional.' });
/** Page metadata; every field is optional. */
export type Metadata = z.infer<typeof MetadataSchema>;

const text = (kind: keyof typeof TEXT_BOUNDS) => z.string().max(TEXT_BOUNDS[kind]);

/**
 * Page metadata as a request sends it (`metadata` of `createPage`, `metadataOverride` of
 * `createAudience`): the fields of {@link MetadataSchema}, each bounded by its kind of text
 * (titles 500, descriptions 1,000, URLs 2,048, ids and names 255, keywords 100 characters; at most
 * 100 keywords and 20 robots directives).
 */
export const NewMetadataSchema = z
  .object({
    title: text('title').describe(FIELD.title),
    description: text('shortText').describe(FIELD.description),
    keywords: z.array(text('token')).max(ITEM_BOUNDS.keywords).describe(FIELD.keywords),
    author: text('name').describe(FIELD.author),
    robots: z.array(text('token')).max(ITEM_BOUNDS.robots).describe(FIELD.robots),
    canonicalUrl: text('url').describe(FIELD.canonicalUrl),
    ogTitle: text('title').describe(FIELD.ogTitle),
    ogDescription: text('shortText').describe(FIELD.ogDescription),
    ogImageUrl: text('url').describe(FIELD.ogImageUrl),
    ogImageFileId: text('id').describe(FIELD.ogImageFileId),
    ogImageAlt: text('shortText').describe(FIELD.ogImageAlt),
    ogSiteName: text('name').describe(FIELD.ogSiteName),
    ogUrl: text('url').describe(FIELD.ogUrl),
    twitterTitle: text('title').describe(FIELD.twitterTitle),
    twitterDescription: text('shortText').describe(FIELD.twitterDescription),
    twitterImageUrl: text('url').describe(FIELD.twitterImageUrl),
    twitterImageFileId: text('id').describe(FIELD.twitterImageFileId),
    twitterImageAlt: text('shortText').describe(FIELD.twitterImageAlt),
    twitterSite: text('name').describe(FIELD.twitterSite),
    twitterCreator: text('name').describe(FIELD.twitterCreator),
    themeColor: text('token').describe(FIELD.themeColor),
  })
  .partial()
  .strict()
  .meta({ id: 'NewMetadata', description: 'Page metadata as sent; every field is optional and bounded.' });
/** Page metadata as a request sends it. */
export type NewMetadata = z.input<typeof NewMetadataSchema>;
