import { z } from 'zod';
import { ITEM_BOUNDS, TEXT_BOUNDS } from './bounds.js';

/**
 * Page metadata (also an audience's `effectiveMetadata` and `metadataOverride`).
 * The specification does not say which fields are required, so every field is optional;
 * `robots` holds strings such as `noindex`.
 */
export const MetadataSchema = z
  .object({
    title: z.string(),
    description: z.string(),
    keywords: z.array(z.string()),
    author: z.string(),
    robots: z.array(z.string()),
    canonicalUrl: z.string(),
    ogTitle: z.string(),
    ogDescription: z.string(),
    ogImageUrl: z.string(),
    ogImageFileId: z.string(),
    ogImageAlt: z.string(),
    ogSiteName: z.string(),
    ogUrl: z.string(),
    twitterTitle: z.string(),
    twitterDescription: z.string(),
    twitterImageUrl: z.string(),
    twitterImageFileId: z.string(),
    twitterImageAlt: z.string(),
    twitterSite: z.string(),
    twitterCreator: z.string(),
    themeColor: z.string(),
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
    title: text('title'),
    description: text('shortText'),
    keywords: z.array(text('token')).max(ITEM_BOUNDS.keywords),
    author: text('name'),
    robots: z.array(text('token')).max(ITEM_BOUNDS.robots),
    canonicalUrl: text('url'),
    ogTitle: text('title'),
    ogDescription: text('shortText'),
    ogImageUrl: text('url'),
    ogImageFileId: text('id'),
    ogImageAlt: text('shortText'),
    ogSiteName: text('name'),
    ogUrl: text('url'),
    twitterTitle: text('title'),
    twitterDescription: text('shortText'),
    twitterImageUrl: text('url'),
    twitterImageFileId: text('id'),
    twitterImageAlt: text('shortText'),
    twitterSite: text('name'),
    twitterCreator: text('name'),
    themeColor: text('token'),
  })
  .partial()
  .strict()
  .meta({ id: 'NewMetadata', description: 'Page metadata as sent; every field is optional and bounded.' });
/** Page metadata as a request sends it. */
export type NewMetadata = z.input<typeof NewMetadataSchema>;
