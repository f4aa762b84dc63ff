import { z } from 'zod';

/**
 * Longest value, in characters (UTF-16 code units, as JavaScript counts them), of each kind of
 * request text. Every request string takes one of these unless the specification fixes its own
 * range (account log `name` and `idempotencyKey`: 255; `source` and `type`: 100). Responses carry
 * no such bound. Over a bound: 400 VALIDATION_ERROR naming the field. See
 * docs/decisions/0212-bounded-request-fields.md.
 */
export const TEXT_BOUNDS = {
  /** Identifiers given by this service or by the caller (`actionId`, `fileId`, `toolCallId`). */
  id: 255,
  /** Short names and labels: a button title, an author, a link text, a site or handle. */
  name: 255,
  /** Titles: a page, a topic, a metadata or Open Graph title, an artifact. */
  title: 500,
  /** Tokens: a keyword, a tag, a robots directive, a widget or action type, a colour. */
  token: 100,
  /** URLs and paths (the common browser and CDN limit). */
  url: 2048,
  /** A sentence or two: a description, an alt text, a purpose. */
  shortText: 1000,
  /** A few paragraphs: instructions, an error message, a preview. */
  text: 10_000,
  /** Documents: page context, message content and reasoning, a script. */
  longText: 100_000,
} as const;

/** Most items of each kind of request array. */
export const ITEM_BOUNDS = {
  /** Parts of a page: actions, widgets, footer link groups, scripts; links of a group; logos. */
  parts: 100,
  /** Keywords of the page metadata. */
  keywords: 100,
  /** Robots directives (`noindex`, `nofollow`, …; a few dozen exist). */
  robots: 20,
} as const;

/** Largest free-form JSON payload (account and person logs): 64 KiB as compact UTF-8 JSON. */
export const JSON_PAYLOAD_MAX_BYTES = 65_536;

/**
 * The OpenAPI extension keyword that declares the largest size of a value, in bytes of its compact
 * UTF-8 JSON (`JSON.stringify`), where a value's parts are free-form and cannot all carry
 * `maxLength` or `maxItems`.
 */
export const MAX_BYTES_KEYWORD = 'x-maxBytes';

/** A request text of `kind`'s length, at least `min` characters (1 unless given). */
export const boundedText = (kind: keyof typeof TEXT_BOUNDS, min = 1) =>
  z.string().min(min).max(TEXT_BOUNDS[kind]);

/**
 * Size of `value` in bytes of compact UTF-8 JSON (0 for what JSON cannot write). JSON.stringify
 * escapes lone surrogates, so every code point here is whole.
 */
export function jsonBytes(value: unknown): number {
  let bytes = 0;
  for (const char of JSON.stringify(value) ?? '') {
    const code = char.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** `n` as `65,536`. */
const grouped = (n: number) => Math.trunc(n).toLocaleString('en-US');

/**
 * A free-form JSON object of at most `maxBytes` bytes as compact UTF-8 JSON, with keys of at most
 * {@link TEXT_BOUNDS}`.name` characters. The bound is declared as {@link MAX_BYTES_KEYWORD}.
 */
export function boundedJsonObject(maxBytes: number, description: string) {
  return z
    .record(z.string().max(TEXT_BOUNDS.name), z.unknown())
    .superRefine((value, ctx) => {
      const bytes = jsonBytes(value);
      if (bytes > maxBytes)
        ctx.addIssue({
          code: 'custom',
          message: `Takes ${grouped(bytes)} bytes as JSON; at most ${grouped(maxBytes)} are accepted.`,
        });
    })
    .meta({ description, [MAX_BYTES_KEYWORD]: maxBytes });
}
