import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_HTTP_PORT, parseConfig } from './config.js';

const env = { CUSTOMER_API_KEY: 'cak_test', CUSTOMER_API_BASE_URL: 'http://api.test:3000' };

describe('parseConfig', () => {
  it('defaults to stdio with the key and base URL from the environment', () => {
    expect(parseConfig([], env)).toMatchObject({
      transport: 'stdio',
      apiKey: 'cak_test',
      baseUrl: 'http://api.test:3000',
      selection: { readOnly: false, toolsets: ['default'], tools: undefined },
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
    expect(() => parseConfig(['--toolsets', 'page'], env)).toThrow(
      /toolsets: default, all, pages, analytics/,
    );
    expect(() => parseConfig(['--tools', 'nope'], env)).toThrow(/Unknown tool nope/);
    expect(() => parseConfig(['--port', '70000'], env)).toThrow(/--port must be an integer/);
    expect(() => parseConfig([], { ...env, CUSTOMER_API_BASE_URL: 'not a url' })).toThrow(/not a URL/);
  });

  it('reads every option from its environment variable too; the command line wins', () => {
    const config = parseConfig([], {
      MCP_TRANSPORT: 'http',
      MCP_PORT: '4100',
      MCP_HOST: '0.0.0.0',
      MCP_ALLOWED_HOSTS: 'mcp.example.com',
      MCP_ALLOWED_ORIGINS: 'https://app.example.com',
      MCP_READ_ONLY: '1',
      MCP_TOOLSETS: 'all',
      MCP_TOOLS: 'list_pages,get_page',
      MCP_MAX_RESULT_BYTES: '5000',
      MCP_LOG_LEVEL: 'warn',
    });
    expect(config).toMatchObject({
      transport: 'http',
      http: {
        port: 4100,
        host: '0.0.0.0',
        allowedHosts: ['mcp.example.com'],
        allowedOrigins: ['https://app.example.com'],
        sharedKey: false,
      },
      selection: { readOnly: true, toolsets: ['all'], tools: ['list_pages', 'get_page'] },
      maxResultBytes: 5000,
      logLevel: 'warn',
    });
    expect(
      parseConfig(['--port', '4200', '--toolsets', 'pages'], { MCP_PORT: '4100', ...env }),
    ).toMatchObject({
      http: { port: 4200 },
      selection: { toolsets: ['pages'] },
    });
    expect(parseConfig(['--http'], { ...env, MCP_SHARED_KEY: 'true' })).toMatchObject({
      http: { sharedKey: true },
    });
    expect(() => parseConfig([], { ...env, MCP_READ_ONLY: 'yes' })).toThrow('MCP_READ_ONLY must be 1 or 0');
    expect(() => parseConfig([], { ...env, MCP_TRANSPORT: 'sse' })).toThrow(
      'MCP_TRANSPORT must be stdio or http',
    );
  });

  it('serves the default toolset unless toolsets or named tools are asked for', () => {
    expect(parseConfig([], env)).toMatchObject({ selection: { toolsets: ['default'] } });
    expect(parseConfig(['--tools', 'get_webhook_subscription'], env)).toMatchObject({
      selection: { toolsets: undefined, tools: ['get_webhook_subscription'] },
    });
  });

  it('reads the OAuth settings, and refuses incomplete or unsafe ones', () => {
    const oauthEnv = { MCP_AUTH_ISSUER: 'https://login.example.com', MCP_AUTH_KEYS: '{"acme":"cak_a"}' };
    expect(parseConfig(['--http', '--port', '4000'], oauthEnv)).toMatchObject({
      oauth: {
        issuer: 'https://login.example.com',
        resource: 'http://127.0.0.1:4000/mcp',
        tenantClaim: 'customer_api_tenant',
        keys: new Map([['acme', 'cak_a']]),
      },
    });
    expect(
      parseConfig(['--http'], { ...oauthEnv, MCP_PUBLIC_URL: 'https://mcp.example.com/mcp' }),
    ).toMatchObject({
      oauth: { resource: 'https://mcp.example.com/mcp' },
    });
    expect(parseConfig(['--http'], {})).toMatchObject({ oauth: undefined });
    expect(() => parseConfig(['--http'], { MCP_AUTH_ISSUER: 'https://login.example.com' })).toThrow(
      /MCP_AUTH_KEYS/,
    );
    expect(() =>
      parseConfig(['--http'], { ...oauthEnv, MCP_AUTH_ISSUER: 'http://login.example.com' }),
    ).toThrow(/must be an https URL/);
    expect(() => parseConfig(['--http'], { ...oauthEnv, MCP_AUTH_KEYS: '{"acme":""}' })).toThrow(
      /non-empty API key/,
    );
    expect(() => parseConfig(['--http'], { MCP_AUTH_KEYS: '{"acme":"cak_a"}' })).toThrow(
      /needs MCP_AUTH_ISSUER/,
    );
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
