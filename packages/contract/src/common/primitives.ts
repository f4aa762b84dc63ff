import { z } from 'zod';

/** Largest integer the specification allows for counts and sort orders (2^53 - 1). */
export const MAX_SAFE_INTEGER = 9007199254740991;

/**
 * An ISO 8601 date-time in UTC with a trailing `Z`, e.g. `2026-01-31T12:00:00.000Z`.
 * Offsets such as `+02:00` are rejected: the specification requires UTC.
 */
export const TimestampSchema = z.iso
  .datetime({ offset: false, local: false })
  .meta({ id: 'Timestamp', description: 'ISO 8601 date-time in UTC with a trailing Z.' });
/**
 * Longest timestamp a request may send: `2026-01-31T12:00:00.000000000Z` (nanoseconds) is 30
 * characters; the format itself allows any number of fraction digits.
 */
export const TIMESTAMP_MAX_LENGTH = 35;

/** An ISO 8601 UTC date-time string (see {@link TimestampSchema}). */
export type Timestamp = z.infer<typeof TimestampSchema>;

/** A count or size: an integer from 0 to 9007199254740991. */
export const CountSchema = z.number().int().min(0).max(MAX_SAFE_INTEGER);

/** A path parameter: the specification only requires a non-empty string. */
export const PathIdSchema = z.string().min(1).max(255);

/** Kebab-case identifier used by account and person log `source` and `type` (1 to 100 characters). */
export const KebabCaseSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(
    /^[a-z0-9]+(-[a-z0-9]+)*$/,
    'Must be kebab-case: lower-case letters and digits separated by single hyphens',
  );

/** An arbitrary JSON object (log and event payloads as responses carry them). */
export const JsonObjectSchema = z.record(z.string(), z.unknown());
/** An arbitrary JSON object. */
export type JsonObject = z.infer<typeof JsonObjectSchema>;

/**
 * The request body of restore and other action endpoints: a JSON object that clients send empty.
 * Unknown keys are rejected so that a misspelt option is reported instead of ignored.
 */
export const EmptyBodySchema = z.object({}).strict();
/** The empty JSON object body `{}`. */
export type EmptyBody = z.infer<typeof EmptyBodySchema>;
