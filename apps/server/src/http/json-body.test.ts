import { describe, expect, it } from 'vitest';
import { jsonDepthExceeds } from './json-body.js';

/** Nesting read one character at a time: the plain definition the fast scan must agree with. */
function deepest(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') max = Math.max(max, ++depth);
    else if (c === '}' || c === ']') depth -= 1;
  }
  return max;
}

const nested = (levels: number, inner = '1') => '['.repeat(levels) + inner + ']'.repeat(levels);

describe('jsonDepthExceeds', () => {
  const texts = [
    nested(64),
    nested(65),
    `{"a":${nested(63)}}`,
    `{"a":${nested(64)}}`,
    '"[[[[["',
    JSON.stringify({ s: '\\"[[[[', t: ['\\', '"{'] }),
    `[${JSON.stringify('\\'.repeat(9))},${nested(3)}]`,
    `"\\\\"${nested(65)}`, // an escaped backslash ends before the quote: the brackets count
    `"\\"${nested(65)}"`, // an escaped quote: the brackets are inside the string
    `{"text":"${'x'.repeat(200_000)}","list":${nested(10)}}`,
    '',
    ']]]][[[',
  ];

  it.each(texts.map((text) => [text.slice(0, 40), text]))(
    'agrees with reading every character: %s',
    (_, text) => {
      for (const limit of [0, 1, 3, 10, 63, 64])
        expect(jsonDepthExceeds(text, limit), `limit ${limit}`).toBe(deepest(text) > limit);
    },
  );

  it('agrees on random texts of quotes, backslashes and brackets', () => {
    const alphabet = ['"', '\\', '[', ']', '{', '}', 'a', ',', ':'];
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let n = 0; n < 2000; n += 1) {
      const text = Array.from(
        { length: 1 + Math.floor(random() * 40) },
        () => alphabet[Math.floor(random() * 9)],
      ).join('');
      for (const limit of [0, 1, 2, 4])
        expect(jsonDepthExceeds(text, limit), text).toBe(deepest(text) > limit);
    }
  });
});
