import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  boundedJsonObject,
  boundedText,
  ITEM_BOUNDS,
  JSON_PAYLOAD_MAX_BYTES,
  jsonBytes,
  MAX_BYTES_KEYWORD,
  TEXT_BOUNDS,
} from './bounds.js';

// The bounds of decision 0212, as clients see them: the numbers, what is accepted at a bound and
// refused one past it, and how free-form JSON is measured.

describe('request bounds', () => {
  it('are the values of decision 0212', () => {
    expect(TEXT_BOUNDS).toEqual({
      id: 255,
      name: 255,
      title: 500,
      token: 100,
      url: 2048,
      shortText: 1000,
      text: 10_000,
      longText: 100_000,
    });
    expect(ITEM_BOUNDS).toEqual({ parts: 100, keywords: 100, robots: 20 });
    expect(JSON_PAYLOAD_MAX_BYTES).toBe(65_536);
    expect(MAX_BYTES_KEYWORD).toBe('x-maxBytes');
  });

  it('accept a text of exactly its bound, refuse one character more, and an empty one by default', () => {
    const title = boundedText('title');
    expect(title.safeParse('t'.repeat(500)).success).toBe(true);
    const over = title.safeParse('t'.repeat(501));
    expect(over.success).toBe(false);
    expect(over.error?.issues[0]?.code).toBe('too_big');
    expect(title.safeParse('').success).toBe(false);
    expect(boundedText('token', 0).safeParse('').success).toBe(true);
    expect(boundedText('token', 3).safeParse('ab').success).toBe(false);
  });
});

describe('jsonBytes', () => {
  it('counts the bytes of compact UTF-8 JSON, as Buffer.byteLength does', () => {
    const samples: unknown[] = [
      'a',
      '\u007f',
      '\u0080',
      'é',
      '\u07ff',
      '\u0800',
      '€',
      '\uffff',
      '😀',
      '€€',
      'ab€cd😀é',
      '\ud800\udc00',
      '\udbff\udfff',
      { key: ['x', 1, true, null], nested: { é: '€😀' } },
      [],
    ];
    for (const value of samples) {
      expect(jsonBytes(value), JSON.stringify(value)).toBe(Buffer.byteLength(JSON.stringify(value), 'utf8'));
    }
  });

  it('counts a surrogate pair as 4 bytes and a lone surrogate as its escape', () => {
    expect(jsonBytes('😀')).toBe(6);
    // JSON.stringify escapes a lone surrogate (\ud800: six ASCII characters).
    expect(jsonBytes('\ud800')).toBe(8);
    expect(jsonBytes('\udc00x')).toBe(9);
  });

  it('counts nothing for what JSON cannot write', () => {
    expect(jsonBytes(undefined)).toBe(0);
  });
});

describe('boundedJsonObject', () => {
  const schema = boundedJsonObject(1000, 'Free-form data.');
  /** An object whose compact JSON takes exactly `bytes` bytes (`{"v":"…"}`: 8 bytes of framing). */
  const sized = (bytes: number) => ({ v: 'x'.repeat(bytes - 8) });

  it('accepts an object of exactly its size and refuses one byte more, saying both sizes', () => {
    expect(jsonBytes(sized(1000))).toBe(1000);
    expect(schema.safeParse(sized(1000)).success).toBe(true);
    const over = schema.safeParse(sized(1005));
    expect(over.success).toBe(false);
    expect(over.error?.issues[0]?.message).toBe('Takes 1,005 bytes as JSON; at most 1,000 are accepted.');
    const small = boundedJsonObject(10, 'Tiny.').safeParse({ v: 'xxxx' });
    expect(small.error?.issues[0]?.message).toBe('Takes 12 bytes as JSON; at most 10 are accepted.');
  });

  it('refuses keys longer than a name and values that are not objects', () => {
    expect(schema.safeParse({ ['k'.repeat(255)]: 1 }).success).toBe(true);
    expect(schema.safeParse({ ['k'.repeat(256)]: 1 }).success).toBe(false);
    expect(schema.safeParse(['not', 'an', 'object']).success).toBe(false);
  });

  it('declares its size and description in the JSON schema', () => {
    const json = z.toJSONSchema(schema) as Record<string, unknown>;
    expect(json[MAX_BYTES_KEYWORD]).toBe(1000);
    expect(json.description).toBe('Free-form data.');
  });
});
