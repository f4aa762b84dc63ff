import { describe, expect, it } from 'vitest';
import { canonicalDomain, emailDomain } from './domain.js';

describe('canonicalDomain', () => {
  it.each([
    ['example.com', 'example.com'],
    ['Example.COM', 'example.com'],
    ['  example.com  ', 'example.com'],
    ['https://example.com', 'example.com'],
    ['HTTP://Example.com/', 'example.com'],
    ['ftp://files.example.com', 'files.example.com'],
    ['//example.com/path', 'example.com'],
    ['www.example.com', 'example.com'],
    ['WWW.Example.com', 'example.com'],
    ['https://www.example.com:8443/about?x=1#top', 'example.com'],
    ['example.com:443', 'example.com'],
    ['example.com/pricing', 'example.com'],
    ['example.com?ref=ad', 'example.com'],
    ['example.com#section', 'example.com'],
    ['example.com.', 'example.com'],
    ['www.example.com.', 'example.com'],
    ['user:pass@example.com', 'example.com'],
    ['jane@example.com', 'example.com'],
    ['sub.www.example.com', 'sub.www.example.com'],
    ['www.com', 'www.com'],
    ['app.example.co.uk', 'app.example.co.uk'],
    ['Bücher.de', 'xn--bcher-kva.de'],
    ['https://www.münchen.de/stadt', 'xn--mnchen-3ya.de'],
    ['xn--bcher-kva.de', 'xn--bcher-kva.de'],
    ['例え.テスト', 'xn--r8jz45g.xn--zckzah'],
    ['ｅｘａｍｐｌｅ.com', 'example.com'],
    ['my-company.io', 'my-company.io'],
  ])('%j -> %j', (input, expected) => {
    expect(canonicalDomain(input)).toBe(expected);
  });

  it.each([
    '',
    '   ',
    'localhost',
    'https://',
    'exa mple.com',
    '1.2.3.4',
    '[::1]',
    'a..b.com',
    '.example.com',
    'example..com.',
    '-example.com',
    'example-.com',
    'ex_ample.com',
    `${'a'.repeat(64)}.com`,
    `${'a.'.repeat(127)}com`,
    'xn--zz.com',
    'http://user@',
  ])('%j is not a domain', (input) => {
    expect(canonicalDomain(input)).toBeNull();
  });

  it('is idempotent: the canonical form canonicalises to itself', () => {
    for (const input of ['https://WWW.Bücher.de:80/x', 'Example.COM.', 'a.b.example.org']) {
      const once = canonicalDomain(input);
      expect(once).not.toBeNull();
      expect(canonicalDomain(once as string)).toBe(once);
    }
  });
});

describe('emailDomain', () => {
  it.each([
    ['jane@example.com', 'example.com'],
    ['Jane.Doe@Mail.Example.COM', 'mail.example.com'],
    ['"odd@name"@example.org', 'example.org'],
    ['ana@bücher.de', 'xn--bcher-kva.de'],
  ])('%j -> %j', (input, expected) => {
    expect(emailDomain(input)).toBe(expected);
  });

  it('is null without an @ or a valid domain', () => {
    expect(emailDomain('jane.example.com')).toBeNull();
    expect(emailDomain('jane@localhost')).toBeNull();
  });
});
