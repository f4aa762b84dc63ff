import { z } from 'zod';

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
