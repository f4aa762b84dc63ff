import pg from 'pg';

/** `timestamptz` as PostgreSQL prints it with `DateStyle` ISO: `2026-11-22 12:08:10.123456+00`. */
const TIMESTAMPTZ = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d{1,6})?)([+-]\d\d)(?::?(\d\d))?$/;

/** The two decimal digits of `s` at `i` as a number (no check: the caller checked the form). */
const twoDigits = (s: string, i: number) => (s.charCodeAt(i) - 48) * 10 + s.charCodeAt(i + 1) - 48;

/** Whether `s` has an ASCII digit at each of `positions`. */
function digitsAt(s: string, positions: readonly number[]): boolean {
  for (const i of positions) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

const DATE_TIME_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18] as const;

/**
 * Parses `timestamptz` as PostgreSQL prints it (`2026-11-22 12:08:10.123456+00`, the offset also
 * `±HH:MM`) from its characters, truncating to milliseconds as Date does: about 4 × faster than
 * building an ISO string for the engine's date parser, which a list of 20 pages did 40 times per
 * request. Anything else (years before 100, BC dates, infinity, offsets with seconds) goes the
 * slower way, node-postgres' general parser last.
 */
export function parseTimestamptz(text: string): Date {
  const n = text.length;
  if (
    n < 22 ||
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 32 || // space
    text.charCodeAt(13) !== 58 || // :
    text.charCodeAt(16) !== 58 ||
    !digitsAt(text, DATE_TIME_DIGITS)
  ) {
    return parseTimestamptzSlowly(text);
  }
  let i = 19;
  let ms = 0;
  if (text.charCodeAt(i) === 46) {
    // Fraction: the first three digits are the milliseconds, the rest is truncated.
    i += 1;
    let scale = 100;
    while (i < n) {
      const d = text.charCodeAt(i) - 48;
      if (d < 0 || d > 9) break;
      ms += d * scale;
      scale = scale === 1 ? 0 : scale / 10;
      i += 1;
    }
  }
  const sign = text.charCodeAt(i);
  const offsetLength = n - i;
  if (
    (sign !== 43 && sign !== 45) || // + -
    (offsetLength !== 3 && !(offsetLength === 6 && text.charCodeAt(i + 3) === 58)) ||
    !digitsAt(text, offsetLength === 3 ? [i + 1, i + 2] : [i + 1, i + 2, i + 4, i + 5])
  ) {
    return parseTimestamptzSlowly(text);
  }
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  // Date.UTC reads years 0-99 as 1900-1999.
  if (year < 100) return parseTimestamptzSlowly(text);
  const offsetMinutes = twoDigits(text, i + 1) * 60 + (offsetLength === 6 ? twoDigits(text, i + 4) : 0);
  const utc = Date.UTC(
    year,
    twoDigits(text, 5) - 1,
    twoDigits(text, 8),
    twoDigits(text, 11),
    twoDigits(text, 14),
    twoDigits(text, 17),
    ms,
  );
  return new Date(utc - (sign === 45 ? -1 : 1) * offsetMinutes * 60_000);
}

/** The engine's ISO date parser through a regular expression, then node-postgres' general one. */
function parseTimestamptzSlowly(text: string): Date {
  const m = TIMESTAMPTZ.exec(text);
  if (!m) return defaultTimestamptz(text) as Date;
  return new Date(`${m[1]}T${m[2]}${m[3]}:${m[4] ?? '00'}`);
}

const defaultTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text');
