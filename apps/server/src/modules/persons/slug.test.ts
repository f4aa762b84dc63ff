import { describe, expect, it } from 'vitest';
import { personSlug, slugify } from './slug.js';

describe('slugify', () => {
  it.each([
    ['Jane Doe', 'jane-doe'],
    ['  José  Álvarez ', 'jose-alvarez'],
    ['O’Brien & Sons, Ltd.', 'o-brien-sons-ltd'],
    ['ÅSA__berg--2', 'asa-berg-2'],
    ['日本', ''],
    ['---', ''],
  ])('%j -> %j', (input, expected) => {
    expect(slugify(input)).toBe(expected);
  });

  it('stays within 255 characters and never ends with a hyphen', () => {
    const slug = slugify(`${'a'.repeat(254)} b`);
    expect(slug.length).toBeLessThanOrEqual(255);
    expect(slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });
});

describe('personSlug', () => {
  it('falls back to the email local part, then to "person"', () => {
    expect(personSlug('Jane Doe', 'x@example.com')).toBe('jane-doe');
    expect(personSlug('日本', 'taro.yamada@example.jp')).toBe('taro-yamada');
    expect(personSlug('日本', '山田@example.jp')).toBe('person');
  });
});
