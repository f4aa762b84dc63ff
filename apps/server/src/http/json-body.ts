import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../lib/errors.js';
import { registerBodyLimits } from './body-limits.js';

/** Fastify's own body limit, for an instance built without one. */
const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Deepest nesting of arrays and objects a request body may have (DESIGN: 64). */
export const MAX_JSON_DEPTH = 64;

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** The characters that matter to nesting; the regular expression engine skips the rest. */
const SIGNIFICANT = /["\\[\]{}]/g;

/**
 * The deepest nesting of `text`, counted on the raw text before parsing: a body nested
 * thousands of levels deep would otherwise overflow the stack of every recursive walk after
 * the parser (hashing, serialising). Brackets inside strings do not count. Stops early once
 * past `limit`. It jumps from one quote, backslash or bracket to the next: a 1 MiB tool result
 * takes a fraction of a millisecond, where reading every character took 6 to 8.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  const significant = new RegExp(SIGNIFICANT);
  for (let found = significant.exec(text); found !== null; found = significant.exec(text)) {
    const c = text.charCodeAt(found.index);
    if (inString) {
      if (c === BACKSLASH)
        significant.lastIndex = found.index + 2; // the escaped character
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth += 1;
      if (depth > limit) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth -= 1;
  }
  return false;
}

/**
 * JSON bodies: an empty body reads as absent (restore endpoints accept it as `{}`); nesting
 * deeper than {@link MAX_JSON_DEPTH} is 400 before parsing. Fastify's parser (secure-json-parse)
 * still refuses `__proto__` keys and `constructor.prototype`, which would otherwise reach
 * code that copies objects; the error handler names them. JSON is the only body type: a
 * `text/plain` body is refused like any other type (400 asking for `application/json`) instead of
 * reaching validation as a string. Each contract route reads at most its largest valid body.
 */
export function registerJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  registerBodyLimits(app, app.initialConfig.bodyLimit ?? DEFAULT_BODY_LIMIT);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
      return done(
        ValidationError.of('body', `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels.`),
        undefined,
      );
    }
    return parseJson(request, text, (err, value) => {
      // Fastify's parser reports every failure alike; valid JSON failing it holds a reserved key.
      if (err && isJson(text)) return done(reservedKeyError(), undefined);
      return done(err, value);
    });
  });
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function reservedKeyError(): ValidationError {
  return ValidationError.of(
    'body',
    'The JSON body contains a "__proto__" key or a "constructor" object with a "prototype" key; these keys are reserved and not accepted.',
  );
}
