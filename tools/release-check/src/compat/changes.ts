/** A JSON value as found in an OpenAPI document. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A JSON object of an OpenAPI document. */
export type JsonObject = { [key: string]: Json };

/**
 * Kinds of difference between two OpenAPI documents. Breaking ones follow DESIGN's compatibility
 * policy: removing or renaming anything, tightening a request rule, making an optional field
 * required, new values in a closed response enum, a response type or shape a consumer does not know.
 */
export const BREAKING_KINDS = [
  'operation-removed',
  'operation-renamed',
  'parameter-removed',
  'parameter-required',
  'request-body-required',
  'request-media-type-removed',
  'request-field-removed',
  'request-field-required',
  'request-rule-tightened',
  'request-type-narrowed',
  'enum-value-removed',
  'response-removed',
  'response-header-removed',
  'response-field-removed',
  'response-field-optional',
  'response-type-changed',
  'response-enum-value-added',
  'webhook-removed',
] as const;

/** Kinds that a consumer of the previous release does not notice (DESIGN: additive changes). */
export const ADDITIVE_KINDS = [
  'operation-added',
  'operation-deprecated',
  'parameter-added',
  'request-field-added',
  'request-rule-loosened',
  'request-enum-value-added',
  'response-added',
  'response-field-added',
  'webhook-added',
] as const;

/** One kind of breaking change. */
export type BreakingKind = (typeof BREAKING_KINDS)[number];
/** One kind of additive change. */
export type AdditiveKind = (typeof ADDITIVE_KINDS)[number];

/** One difference found: its kind, whether it breaks a consumer, and where it is. */
export interface Change {
  kind: BreakingKind | AdditiveKind;
  breaking: boolean;
  /** Where, readably: `GET /v0/pages › response 200 › items[] › name`. */
  at: string;
  /** What changed, when the kind alone does not say it (`maxLength 100 → 50`). */
  detail?: string;
}

const BREAKING = new Set<string>(BREAKING_KINDS);

/** Collects changes; the kind decides whether one is breaking. */
export class ChangeLog {
  readonly changes: Change[] = [];

  /** Records a change at `at`. */
  add(kind: BreakingKind | AdditiveKind, at: string, detail?: string): void {
    this.changes.push({ kind, breaking: BREAKING.has(kind), at, ...(detail ? { detail } : {}) });
  }
}

/** True for a JSON object (not an array, not null). */
export function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
