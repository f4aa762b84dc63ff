import { describe, expect, it } from 'vitest';
import { canonicalDomain, emailDomain } from './domain.js';

// Inputs at the edges of what names an account's domain. Complements domain.test.ts.

/** A domain of exactly `length` characters: 63-character labels, then a shorter last one before `.com`. */
function domainOfLength(length: number): string {
  const labels: string[] = [];
  let left = length - '.com'.length;
  while (left > 0) {
    const size = Math.min(63, left);
    labels.push('a'.repeat(size));
    left -= size + 1;
  }
  const domain = `${labels.join('.')}.com`;
  expect(domain).toHaveLength(length);
  return domain;
}

describe('canonicalDomain at the edges', () => {
  it('accepts a domain of 253 characters, the DNS limit, and refuses 254', () => {
    const longest = domainOfLength(253);
    expect(canonicalDomain(longest)).toBe(longest);
    expect(canonicalDomain(domainOfLength(254))).toBeNull();
  });

  it.each(['example.123', '10.0.0.12', 'example.2026'])(
    '%j has a numeric top-level label: not a domain',
    (input) => {
      expect(canonicalDomain(input)).toBeNull();
    },
  );

  it.each(['example.a1', 'example.1a', 'example.xn--p1ai'])(
    '%j mixes letters and digits at the top: a domain',
    (input) => {
      expect(canonicalDomain(input)).toBe(input);
    },
  );

  it.each([
    ['example.com//about', 'example.com'],
    ['https://example.com//about', 'example.com'],
  ])('%j -> %j (a doubled slash starts the path)', (input, expected) => {
    expect(canonicalDomain(input)).toBe(expected);
  });

  it.each([
    // A tab or line break inside the name is a typo, not something to join up.
    'exa\tmple.com',
    'exa\nmple.com',
    // A colon inside the host is not a port.
    'example.com:80.evil.org',
    // A scheme is only one at the start: after user info it is part of the host.
    'jane@https://example.com',
  ])('%j is not a domain', (input) => {
    expect(canonicalDomain(input)).toBeNull();
  });
});

describe('emailDomain at the edges', () => {
  it('reads the domain after the last @, even with an empty local part', () => {
    expect(emailDomain('@example.com')).toBe('example.com');
  });

  it.each([
    ['a/b@example.com', 'example.com'],
    ['what?@example.com', 'example.com'],
    ['#1@example.com', 'example.com'],
  ])('%j -> %j (the local part may hold characters a URL would split on)', (input, expected) => {
    expect(emailDomain(input)).toBe(expected);
  });
});
