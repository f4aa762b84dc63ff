import { z } from 'zod';
import { TimestampSchema } from '../common/primitives.js';

/** The asset types the trash listing can filter on. */
export const AssetTypeSchema = z.enum(['image', 'logo', 'icon', 'video', 'custom-component']);
/** An asset type. */
export type AssetType = z.infer<typeof AssetTypeSchema>;

/**
 * Asset lifecycle states. `active` is a stored item, in the trash or not (the trash is shown by
 * `trashedAt`; the specification's trash listing carries `active`); `deleted` once purged.
 */
export const AssetLifecycleStateSchema = z.enum(['active', 'deleted']);

/**
 * A stored media or component item. The specification does not say which fields are required;
 * this service always sends every field, with optional ones omitted when they have no value.
 */
export const AssetSchema = z
  .object({
    assetId: z.string(),
    tenantId: z.string(),
    name: z.string(),
    purpose: z.string().optional(),
    aiDescription: z.string().optional(),
    parentAssetId: z.string().optional(),
    tags: z.array(z.string()),
    hidden: z.boolean(),
    data: z.object({ type: z.string(), fileId: z.string() }),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
    trashedAt: TimestampSchema.optional(),
    deletedAt: TimestampSchema.optional(),
    lifecycleState: z
      .string()
      .describe('active while the item is stored, in the trash or not (see trashedAt).'),
    downloadUrl: z.string(),
    previewDownloadUrl: z.string(),
  })
  .meta({ id: 'Asset', description: 'Stored media or component item.' });
/** A stored media or component item. */
export type Asset = z.infer<typeof AssetSchema>;

/** Body of `createAsset`. `data.type` is one of the five asset types. */
export const CreateAssetBodySchema = z
  .object({
    name: z.string().min(1).max(255).describe('Name of the asset.'),
    data: z
      .object({
        type: AssetTypeSchema.describe('Kind of file, e.g. image.'),
        fileId: z.string().min(1).max(255).describe('Id of the uploaded file.'),
      })
      .strict()
      .describe('The stored file of the asset.'),
    purpose: z.string().min(1).max(1000).optional().describe('What the asset is for.'),
    aiDescription: z
      .string()
      .min(1)
      .max(10_000)
      .optional()
      .describe('Description of the asset for assistants.'),
    parentAssetId: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .describe('An asset of this tenant (assetId from createAsset); an unknown one is 404 NOT_FOUND.'),
    tags: z.array(z.string().min(1).max(100)).max(50).optional().describe('Tags to find the asset by.'),
    hidden: z.boolean().optional().describe('Whether the asset is hidden from lists.'),
  })
  .strict()
  .meta({ id: 'CreateAssetRequest' });
/** Body of `createAsset`. */
export type CreateAssetBody = z.input<typeof CreateAssetBodySchema>;
