import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { originPolicy, rejectReason } from './guard.js';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe('Host and Origin validation', () => {
  const local = originPolicy('127.0.0.1', [], []);

  it('accepts loopback hosts with any port and no origin (non-browser clients)', () => {
    for (const host of ['127.0.0.1:3001', 'localhost:3001', '[::1]:3001', 'localhost']) {
      expect(rejectReason(request({ host }), local)).toBeUndefined();
    }
  });

  it('refuses a rebinding attacker’s host name', () => {
    expect(rejectReason(request({ host: 'evil.example:3001' }), local)).toMatch(
      /Host evil.example:3001 is not allowed/,
    );
    expect(rejectReason(request({}), local)).toMatch(/Host \(none\)/);
  });

  it('accepts loopback origins and configured ones only', () => {
    const policy = originPolicy('0.0.0.0', ['mcp.example.com'], ['https://app.example.com']);
    const host = 'mcp.example.com';
    expect(rejectReason(request({ host, origin: 'http://localhost:6274' }), policy)).toBeUndefined();
    expect(rejectReason(request({ host, origin: 'https://app.example.com' }), policy)).toBeUndefined();
    expect(rejectReason(request({ host, origin: 'https://evil.example' }), policy)).toMatch(
      /Origin https:\/\/evil/,
    );
    expect(rejectReason(request({ host, origin: 'null' }), policy)).toMatch(/Origin null/);
  });

  it('accepts the bound host name, but not a wildcard address', () => {
    expect(
      rejectReason(request({ host: 'mcp.internal:3001' }), originPolicy('mcp.internal', [], [])),
    ).toBeUndefined();
    expect(rejectReason(request({ host: '0.0.0.0:3001' }), originPolicy('0.0.0.0', [], []))).toBeDefined();
  });

  it('can be switched off with *', () => {
    expect(
      rejectReason(request({ host: 'any', origin: 'https://any' }), originPolicy('0.0.0.0', ['*'], ['*'])),
    ).toBeUndefined();
  });
});
