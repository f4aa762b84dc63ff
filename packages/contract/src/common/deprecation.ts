/**
 * When a contract operation was deprecated and when it goes away. Set through
 * `operation(group, kind, { deprecated: { since, sunset } })` in the operation's metadata: the
 * OpenAPI document then marks it `deprecated: true` and declares the two headers below on its
 * responses, and the server sends them on every response to it.
 */
export interface Deprecation {
  /** When the operation was deprecated: an ISO 8601 date (`2027-01-15`) or date-time. */
  readonly since: string;
  /** When it will be removed, ISO 8601; after it, calls may fail. Not before `since`. */
  readonly sunset: string;
  /** The operation to call instead, named in the description. */
  readonly replacement?: string;
}

/** The response headers of a deprecated operation, by name. */
export interface DeprecationHeaders {
  /** RFC 9745: a structured-field date, `@` + Unix seconds. */
  Deprecation: string;
  /** RFC 8594: an HTTP date (IMF-fixdate). */
  Sunset: string;
}

function instant(value: string, field: string): Date {
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) {
    throw new Error(`deprecation ${field} must be an ISO 8601 date, got ${JSON.stringify(value)}`);
  }
  return date;
}

/** The `Deprecation` and `Sunset` header values for a deprecation; throws on bad or reversed dates. */
export function deprecationHeaders(deprecation: Deprecation): DeprecationHeaders {
  const since = instant(deprecation.since, 'since');
  const sunset = instant(deprecation.sunset, 'sunset');
  if (sunset < since) throw new Error('deprecation sunset must not come before since');
  return { Deprecation: `@${Math.floor(since.getTime() / 1000)}`, Sunset: sunset.toUTCString() };
}

const DEPRECATION_HEADER = {
  description:
    'RFC 9745: this operation is deprecated; the value is when (`@` + Unix seconds). Move off it before the Sunset date.',
  schema: { type: 'string', pattern: '^@-?[0-9]+$' },
};
const SUNSET_HEADER = {
  description: 'RFC 8594: when this operation stops working (HTTP date).',
  schema: { type: 'string' },
};

/** An OpenAPI operation object, as far as {@link markDeprecated} touches it. */
export interface OpenApiOperationLike {
  [key: string]: unknown;
}

/**
 * Marks an OpenAPI operation deprecated: `deprecated: true`, a sentence saying since when, until
 * when and what to use instead, and the `Deprecation` and `Sunset` headers on every response.
 */
export function markDeprecated(op: OpenApiOperationLike, deprecation: Deprecation): void {
  const { Sunset } = deprecationHeaders(deprecation);
  const instead = deprecation.replacement ? ` Use \`${deprecation.replacement}\` instead.` : '';
  const note = `Deprecated since ${deprecation.since}; removed after ${Sunset}.${instead}`;
  op.deprecated = true;
  op.description = typeof op.description === 'string' ? `${note}\n\n${op.description}` : note;
  const responses = (op.responses ?? {}) as Record<string, { headers?: Record<string, unknown> }>;
  for (const response of Object.values(responses)) {
    response.headers = { ...response.headers, Deprecation: DEPRECATION_HEADER, Sunset: SUNSET_HEADER };
  }
}
