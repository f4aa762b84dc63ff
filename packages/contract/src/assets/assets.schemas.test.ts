import { describe, expect, it } from 'vitest';
import { ListTrashedAssetsQuerySchema } from './assets.contract.js';
import { AssetTypeSchema, CreateAssetBodySchema } from './assets.schemas.js';

describe('assets', () => {
  it('filter the trash by the five asset types only', () => {
    expect(AssetTypeSchema.options).toEqual(['image', 'logo', 'icon', 'video', 'custom-component']);
    expect(ListTrashedAssetsQuerySchema.parse({ assetType: 'logo', query: 'brand' })).toMatchObject({
      assetType: 'logo',
      query: 'brand',
      limit: 20,
    });
    expect(ListTrashedAssetsQuerySchema.safeParse({ assetType: 'audio' }).success).toBe(false);
    // An empty query is no filter, as if it were left out.
    expect(ListTrashedAssetsQuerySchema.parse({ query: '' }).query).toBeUndefined();
    expect(ListTrashedAssetsQuerySchema.safeParse({ query: 'x'.repeat(201) }).success).toBe(false);
  });

  it('create needs a name and data with a known type and a fileId', () => {
    expect(
      CreateAssetBodySchema.safeParse({ name: 'Logo', data: { type: 'logo', fileId: 'f1' } }).success,
    ).toBe(true);
    expect(CreateAssetBodySchema.safeParse({ name: 'Logo' }).success).toBe(false);
    expect(CreateAssetBodySchema.safeParse({ name: '', data: { type: 'logo', fileId: 'f1' } }).success).toBe(
      false,
    );
    expect(
      CreateAssetBodySchema.safeParse({ name: 'Logo', data: { type: 'pdf', fileId: 'f1' } }).success,
    ).toBe(false);
  });
});
