import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_HTTP_PORT, parseConfig } from './config.js';

const env = { CUSTOMER_API_KEY: 'cak_test', CUSTOMER_API_BASE_URL: 'http://api.test:3000' };

describe('parseConfig', () => {
  it('defaults to stdio with the key and base URL from the environment', () => {
    expect(parseConfig([], env)).toMatchObject({
      transport: 'stdio',
      apiKey: 'cak_test',
      baseUrl: 'http://api.test:3000',
      selection: { readOnly: false, toolsets: undefined, tools: undefined },
      http: { port: DEFAULT_HTTP_PORT, host: '127.0.0.1' },
    });
  });

  it('reads the safety switches and the HTTP options', () => {
    const config = parseConfig(
      [
        '--http',
        '--port',
        '4000',
        '--read-only',
        '--toolsets',
        'pages, audience-messages',
        '--tools',
        'list_pages,get_page',
      ],
      {},
    );
    expect(config).toMatchObject({
      transport: 'http',
      apiKey: undefined,
      http: { port: 4000 },
      selection: {
        readOnly: true,
        toolsets: ['pages', 'audience-messages'],
        tools: ['list_pages', 'get_page'],
      },
    });
  });

  it('needs an API key for stdio only', () => {
    expect(() => parseConfig([], {})).toThrow(/Set CUSTOMER_API_KEY/);
    expect(parseConfig(['--http'], {})).toMatchObject({ transport: 'http' });
  });

  it('rejects unknown options, toolsets and tools with the valid choices', () => {
    expect(() => parseConfig(['--readonly'], env)).toThrow(ConfigError);
    expect(() => parseConfig(['--toolsets', 'page'], env)).toThrow(/toolsets: pages, analytics/);
    expect(() => parseConfig(['--tools', 'nope'], env)).toThrow(/Unknown tool nope/);
    expect(() => parseConfig(['--port', '70000'], env)).toThrow(/--port must be an integer/);
    expect(() => parseConfig([], { ...env, CUSTOMER_API_BASE_URL: 'not a url' })).toThrow(/not a URL/);
  });

  it('answers --help', () => {
    expect(parseConfig(['--help'], {})).toBe('help');
  });
});

describe('parseConfig --shared-key', () => {
  it('serves keyless HTTP requests with CUSTOMER_API_KEY only when asked to, and then needs the key', () => {
    expect(parseConfig(['--http'], env)).toMatchObject({ http: { sharedKey: false } });
    expect(parseConfig(['--http', '--shared-key'], env)).toMatchObject({
      apiKey: 'cak_test',
      http: { sharedKey: true },
    });
    expect(() => parseConfig(['--http', '--shared-key'], {})).toThrow(/Set CUSTOMER_API_KEY/);
  });

  it('asks before deletes unless MCP_CONFIRM=0, and takes a signing secret of 32 bytes or more', () => {
    expect(parseConfig([], env)).toMatchObject({ confirm: { enabled: true, secret: undefined } });
    const secret = 's'.repeat(32);
    expect(parseConfig([], { ...env, MCP_CONFIRM: '0', MCP_CONFIRM_SECRET: secret })).toMatchObject({
      confirm: { enabled: false, secret },
    });
    expect(() => parseConfig([], { ...env, MCP_CONFIRM: 'no' })).toThrow('MCP_CONFIRM must be 0 or 1');
    expect(() => parseConfig([], { ...env, MCP_CONFIRM_SECRET: 'short' })).toThrow(
      'MCP_CONFIRM_SECRET must be at least 32 bytes long',
    );
  });
});
