import { Readable } from 'node:stream';
import { holdsJsonText, JsonText } from '../lib/json-text.js';

/** Bodies up to this many characters are serialised at once, exactly as Fastify would. */
export const INLINE_RESPONSE_CHARS = 64 * 1024;
/** Characters per chunk sent (and per spend of the lane). */
const CHUNK_CHARS = 64 * 1024;
/** Characters turned into bytes per turn of the event loop: 4 MiB take 16 turns. */
const PRODUCE_CHARS = 256 * 1024;

/** What a streamed body needs from its tenant's share of the server's bandwidth. */
export interface Lane {
  /** Resolves when the body may start (the tenant's turn). */
  readonly ready: Promise<void>;
  /** Records `bytes` as sent; returns how many milliseconds the next chunk waits. */
  spend(bytes: number): number;
  /** Ends the lane (idempotent): the next of the tenant's bodies may start. */
  end(): void;
}

/**
 * `JSON.stringify(payload)`, or past {@link INLINE_RESPONSE_CHARS} a stream of the same text, in
 * the lane `enter()` gives (called only then).
 */
export function toJsonBody(payload: unknown, enter: () => Lane): string | JsonStream {
  const fragments = jsonFragments(payload, 2);
  let head = '';
  for (let next = fragments.next(); !next.done; next = fragments.next()) {
    // Bytes (stored JSON text) count as characters here: near enough for a threshold.
    if (head.length + next.value.length > INLINE_RESPONSE_CHARS)
      return new JsonStream(head, prepend(next.value, fragments), enter());
    head += next.value.toString();
  }
  return head;
}

/** A fragment of JSON text: text, or the UTF-8 bytes of stored JSON text ({@link JsonText}). */
export type Fragment = string | Buffer;

function* prepend(first: Fragment, rest: Generator<Fragment>): Generator<Fragment> {
  yield first;
  yield* rest;
}

/**
 * A large JSON body. Its text is turned into bytes at once, a few chunks per turn of the event
 * loop (`setImmediate` runs after pending I/O), so the payload's objects and strings are garbage
 * within milliseconds instead of living, and being copied by every young-generation collection,
 * for the second or more that sending takes. The bytes (outside the JavaScript heap) are then
 * sent a chunk at a time, only as fast as the connection takes them and the lane allows.
 */
export class JsonStream extends Readable {
  /** Bytes sent so far. */
  readonly counter = { bytes: 0 };
  #fragments: Iterator<Fragment> | undefined;
  readonly #chunks: Buffer[] = [];
  #produced = false;
  #waiting = false;
  #started = false;
  #waitMs = 0;

  constructor(
    head: string,
    fragments: Iterator<Fragment>,
    private readonly lane: Lane,
  ) {
    super({ highWaterMark: CHUNK_CHARS });
    this.#fragments = fragments;
    this.#produce(head);
  }

  override _read(): void {
    if (this.#started) {
      if (this.#waitMs > 0) setTimeout(() => this.#send(), this.#waitMs);
      else setImmediate(() => this.#send());
      return;
    }
    this.#started = true;
    void this.lane.ready.then(() => setImmediate(() => this.#send()));
  }

  /** Turns up to {@link PRODUCE_CHARS} of text into chunks, then yields the loop until all is bytes. */
  #produce(head = ''): void {
    const fragments = this.#fragments;
    if (this.destroyed || !fragments) return;
    let chunk = head;
    let made = 0;
    while (made < PRODUCE_CHARS) {
      const next = fragments.next();
      if (next.done) break;
      if (next.value.length >= CHUNK_CHARS) {
        // A long fragment (a tool result's JSON text, often bytes already) is a chunk of its
        // own, never copied into a longer string first.
        if (chunk.length > 0) this.#chunks.push(Buffer.from(chunk));
        this.#chunks.push(typeof next.value === 'string' ? Buffer.from(next.value) : next.value);
        made += chunk.length + next.value.length;
        chunk = '';
        continue;
      }
      chunk += next.value.toString();
      if (chunk.length >= CHUNK_CHARS) {
        made += chunk.length;
        this.#chunks.push(Buffer.from(chunk));
        chunk = '';
      }
    }
    if (made < PRODUCE_CHARS) {
      // The fragments ran out: the payload is no longer referenced from here.
      if (chunk.length > 0) this.#chunks.push(Buffer.from(chunk));
      this.#fragments = undefined;
      this.#produced = true;
    } else if (chunk.length > 0) {
      this.#chunks.push(Buffer.from(chunk));
    }
    if (!this.#produced) setImmediate(() => this.#produce());
    if (this.#waiting) {
      this.#waiting = false;
      this.#send();
    }
  }

  #send(): void {
    if (this.destroyed) return;
    const chunk = this.#chunks.shift();
    if (chunk) {
      this.counter.bytes += chunk.length;
      this.#waitMs = this.lane.spend(chunk.length);
      this.push(chunk);
    } else if (!this.#produced) {
      this.#waiting = true; // sent faster than produced: the next chunk made sends itself
      return;
    }
    if (this.#produced && this.#chunks.length === 0) {
      this.lane.end();
      this.push(null);
    }
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#fragments = undefined;
    this.#chunks.length = 0;
    this.lane.end();
    callback(error);
  }
}

const isPlain = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

type ToJson = { toJSON: (key: string) => unknown };
// A JsonText is written as its text: its toJSON (parsing it) is for serialisers that do not know it.
const hasToJson = (value: unknown): value is ToJson =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Partial<ToJson>).toJSON === 'function' &&
  !(value instanceof JsonText);
const omitted = (value: unknown): boolean =>
  value === undefined || typeof value === 'function' || typeof value === 'symbol';

/**
 * The text of `JSON.stringify(value)` in fragments: plain objects and arrays are opened down to
 * `depth` levels (members, elements), anything deeper is one fragment. A {@link JsonText} is its
 * text, as one fragment; an object marked as holding one is opened at any depth. Joined, the
 * fragments are `JSON.stringify(value)`, but for the spacing of JsonText.
 */
export function* jsonFragments(value: unknown, depth: number, key = ''): Generator<Fragment> {
  if (value instanceof JsonText) {
    yield value.text;
    return;
  }
  if (depth > 0 || (typeof value === 'object' && value !== null && holdsJsonText(value))) {
    const resolved = hasToJson(value) ? value.toJSON(key) : value;
    if (Array.isArray(resolved)) {
      yield '[';
      for (let i = 0; i < resolved.length; i += 1) {
        if (i > 0) yield ',';
        const element: unknown = resolved[i];
        if (omitted(hasToJson(element) ? element.toJSON(String(i)) : element)) yield 'null';
        else yield* jsonFragments(element, depth - 1, String(i));
      }
      yield ']';
      return;
    }
    if (typeof resolved === 'object' && resolved !== null && isPlain(resolved)) {
      yield '{';
      let first = true;
      for (const [name, member] of Object.entries(resolved)) {
        if (omitted(hasToJson(member) ? member.toJSON(name) : member)) continue;
        yield `${first ? '' : ','}${JSON.stringify(name)}:`;
        first = false;
        yield* jsonFragments(member, depth - 1, name);
      }
      yield '}';
      return;
    }
    const text = JSON.stringify(resolved);
    if (text !== undefined) yield text;
    return;
  }
  const text = JSON.stringify(hasToJson(value) ? value.toJSON(key) : value);
  if (text !== undefined) yield text;
}
