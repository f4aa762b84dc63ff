import { z } from 'zod';

/**
 * A boolean query flag. Query strings carry text, so only `true` and `false` are accepted
 * (anything else is 400 VALIDATION_ERROR); typed callers may pass a boolean, which is sent as text.
 */
export const BooleanFlagSchema = z
  .union([z.boolean(), z.enum(['true', 'false'])])
  .transform((value) => value === true || value === 'true');
