/**
 * JSON text that a response sends as it is, in place of the value it stands for: a stored json
 * column read as its text or bytes (a `json-bytes` statement) is never parsed into objects only to be
 * serialised again.
 * A history read of 4 MiB of tool results then holds one copy of each in memory instead of four
 * (the driver's text, the parsed value, the serialised text, the chunks), which is what made
 * young-generation collections long while one tenant read large histories. `jsonFragments`
 * writes it out. (A json column keeps the text written; jsonb would be printed anew on every
 * read, three times the database's work, and with a space after `:` and `,`.)
 */
export class JsonText {
  /** The text, or its UTF-8 bytes as the database sent them. */
  constructor(readonly text: string | Buffer) {}

  /** The value, for a serialiser that does not know this class: slower, never wrong. */
  toJSON(): unknown {
    return JSON.parse(this.text.toString()) as unknown;
  }

  /** Stored JSON text (or null) standing for a value of type `T` in a response body. */
  static of<T>(text: string | Buffer | null): T | null {
    return text === null ? null : (new JsonText(text) as unknown as T);
  }
}

/** Marks an object one of whose members is a {@link JsonText}: serialisers must open it. */
const HOLDS_TEXT = Symbol('holds JsonText');

/** `value`, marked as holding a {@link JsonText} member (symbol keys are not serialised). */
export function holdingJsonText<T extends object>(value: T): T {
  Object.defineProperty(value, HOLDS_TEXT, { value: true });
  return value;
}

/** Whether `value` was marked by {@link holdingJsonText}. */
export const holdsJsonText = (value: object): boolean => HOLDS_TEXT in value;

/**
 * `value` with every {@link JsonText} parsed, for checks that need values (response validation
 * outside production); plain objects and arrays are copied only where they hold one.
 */
export function parseJsonText(value: unknown): unknown {
  if (value instanceof JsonText) return value.toJSON();
  if (Array.isArray(value)) {
    const parsed = value.map(parseJsonText);
    return parsed.some((item, i) => item !== value[i]) ? parsed : value;
  }
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype)
    return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, member] of Object.entries(value)) {
    const parsed = parseJsonText(member);
    if (parsed !== member) {
      copy ??= { ...value };
      copy[key] = parsed;
    }
  }
  return copy ?? value;
}
