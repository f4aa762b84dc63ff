import type { ChangeField, Metadata } from '@customer-api/contract';
import type { AudienceRow } from '../audiences/audiences.service.js';

/** The audience fields a conversation can change; a message snapshot stores exactly these. */
export interface AudienceState {
  supplementaryContext: string | null;
  metadataOverride: Metadata | null;
}

/** Which metadata field each change field edits. */
const META_FIELD = { metaTitle: 'title', metaDescription: 'description', metaKeywords: 'keywords' } as const;

/** The editable state of an audience. */
export function stateOf(
  audience: Pick<AudienceRow, 'supplementaryContext' | 'metadataOverride'>,
): AudienceState {
  return {
    supplementaryContext: audience.supplementaryContext,
    metadataOverride: audience.metadataOverride ?? null,
  };
}

/**
 * The current value of a field as text: the effective value (override, else the page's
 * metadata). Keywords are joined with ", ".
 */
export function readField(
  state: AudienceState,
  pageMetadata: Metadata | null,
  field: ChangeField,
): string | null {
  if (field === 'supplementaryContext') return state.supplementaryContext;
  const key = META_FIELD[field];
  const value = state.metadataOverride?.[key] ?? pageMetadata?.[key];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Applies one change; a null value removes the override so the page's value shows again. */
export function applyField(state: AudienceState, field: ChangeField, value: string | null): AudienceState {
  if (field === 'supplementaryContext') return { ...state, supplementaryContext: value };
  const key = META_FIELD[field];
  const override: Metadata = { ...(state.metadataOverride ?? {}) };
  if (value === null) delete override[key];
  else if (key === 'keywords')
    override.keywords = value
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean);
  else override[key] = value;
  return { ...state, metadataOverride: Object.keys(override).length > 0 ? override : null };
}
