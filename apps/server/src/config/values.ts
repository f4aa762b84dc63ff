import { z } from 'zod';

/** Thrown when the environment is invalid; the message lists every bad variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** A {@link ConfigError} about one variable, in the format of the others. */
export function invalid(line: string): ConfigError {
  return new ConfigError(`Invalid environment:\n  ${line}`);
}

/** A text setting; unset, empty or blank is undefined. */
export const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

/** A whole number from `min`; unset takes `fallback`. */
export const positiveInt = (fallback: number, min = 1) =>
  z.coerce.number<number>().int().min(min).max(Number.MAX_SAFE_INTEGER).default(fallback);

/** A boolean setting: `1`/`true` or `0`/`false`; unset or empty takes `fallback`. */
export const flag = (fallback: boolean) =>
  z
    .enum(['1', '0', 'true', 'false', ''])
    .default('')
    .transform((value) => (value === '' ? fallback : value === '1' || value === 'true'));

/** An optional URL whose scheme matches `scheme` (`message` says which). */
export const urlOf = (scheme: RegExp, message: string) =>
  optionalText.pipe(z.string().regex(scheme, message).optional());

/** An optional TCP port (0 to 65535). */
export const optionalPort = optionalText.pipe(
  z.coerce.number<string | undefined>().int().min(0).max(65535).optional(),
);
