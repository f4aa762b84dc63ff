/** Source of the current time; tests inject a fixed or stepping clock. */
export type Clock = () => Date;

/** The real clock. */
export const systemClock: Clock = () => new Date();

/** Formats an instant as the specification's timestamp: ISO 8601 in UTC with a trailing `Z`. */
export function iso(date: Date): string {
  return date.toISOString();
}

/** Like {@link iso}, passing null through. */
export function isoOrNull(date: Date | null | undefined): string | null {
  return date ? date.toISOString() : null;
}
