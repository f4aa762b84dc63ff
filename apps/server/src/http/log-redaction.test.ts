import { describe, expect, it } from 'vitest';
import { maskCredentials } from '../config.js';
import { redactUrl } from './log-redaction.js';

describe('secrets never reach the logs', () => {
  it('redacts secret-looking query parameters and keeps the rest of the URL', () => {
    expect(redactUrl('/v0/pages?api_key=cak_secret&limit=2')).toBe('/v0/pages?api_key=[redacted]&limit=2');
    expect(redactUrl('/v0/assets/a/download?expires=1&signature=abc')).toBe(
      '/v0/assets/a/download?expires=1&signature=[redacted]',
    );
    expect(redactUrl('/x?X-API-KEY=1&Token=2&access%5Ftoken=3&cursor=c')).toBe(
      '/x?X-API-KEY=[redacted]&Token=[redacted]&access%5Ftoken=[redacted]&cursor=c',
    );
    expect(redactUrl('/v0/pages')).toBe('/v0/pages');
    expect(redactUrl('/v0/pages?%E0%A4%A=1')).toBe('/v0/pages?%E0%A4%A=1');
  });

  it('masks the password of a URL printed in a start-up error', () => {
    expect(maskCredentials('mysql://admin:s3cret@db.example/app')).toBe('mysql://admin:***@db.example/app');
    expect(maskCredentials('redis://:pw@cache:6379')).toBe('redis://:***@cache:6379');
    expect(maskCredentials('postgres://user@db/app')).toBe('postgres://user@db/app');
  });
});
