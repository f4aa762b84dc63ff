import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { parseTimestamptz } from './timestamptz.js';

describe('parseTimestamptz', () => {
  it('reads what PostgreSQL prints in every offset style, as the general parser does', () => {
    const cases = [
      ['2026-11-22 12:08:10.123+00', '2026-11-22T12:08:10.123Z'],
      ['2026-11-22 12:08:10.123456+00', '2026-11-22T12:08:10.123Z'],
      ['2026-11-22 12:08:10+05:30', '2026-11-22T06:38:10.000Z'],
      ['2026-11-22 12:08:10.1-08', '2026-11-22T20:08:10.100Z'],
      ['0099-01-01 00:00:00+00', '0099-01-01T00:00:00.000Z'],
    ];
    for (const [text, iso] of cases) expect(parseTimestamptz(text as string).toISOString()).toBe(iso);
    // Outside the fast form: the general parser answers.
    expect(parseTimestamptz('0044-03-15 12:00:00+00 BC').getUTCFullYear()).toBe(-43);
    expect(parseTimestamptz('infinity')).toBe(Number.POSITIVE_INFINITY);
    expect(parseTimestamptz('1850-01-01 00:00:00+00:53:28').toISOString()).toBe('1849-12-31T23:06:32.000Z');
  });

  it('gives the instant node-postgres’ general parser gives, for any instant, fraction and offset', () => {
    const general = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text');
    const pad = (n: number, width = 2) => String(n).padStart(width, '0');
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const offsets = [0, 330, -480, 840, -765, 60, -30];
    for (let k = 0; k < 5000; k += 1) {
      // An instant between the years 100 and 9999, to the microsecond, printed as PostgreSQL prints
      // it in a session whose zone is `offset` minutes east of UTC (trailing zeros of the fraction cut).
      const micros = Math.floor(random() * 1_000_000);
      const ms = Date.UTC(100, 0, 1) + Math.floor(random() * (Date.UTC(9999, 11, 31) - Date.UTC(100, 0, 1)));
      const offset = offsets[k % offsets.length] as number;
      const local = new Date(Math.floor(ms / 1000) * 1000 + offset * 60_000);
      const fraction = micros === 0 ? '' : `.${pad(micros, 6).replace(/0+$/, '')}`;
      const sign = offset < 0 ? '-' : '+';
      const zone = `${sign}${pad(Math.floor(Math.abs(offset) / 60))}${Math.abs(offset) % 60 ? `:${pad(Math.abs(offset) % 60)}` : ''}`;
      const text =
        `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())} ` +
        `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}${fraction}${zone}`;
      expect(parseTimestamptz(text).getTime(), text).toBe((general(text) as Date).getTime());
    }
  });
});
