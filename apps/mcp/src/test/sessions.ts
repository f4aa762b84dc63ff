import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** The built CLI, exactly as `customer-api-mcp` runs it (the test task builds first). */
export const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** Protocol era of a test client: the 2025 SDK (`initialize`) or the 2.x client pinned to 2026-07-28. */
export type Era = '2025' | '2026-07-28';
/** Transport of a test session. */
export type Via = 'stdio' | 'http';

/** A tool result as both SDKs return it. */
export type ToolResult = CallToolResult;
/** What a user answers to a confirmation question; `undefined`: the client cannot ask. */
export type Answer = { action: 'accept'; content: { confirm: boolean } } | { action: 'decline' };

/** One connected client, of either era, over either transport. */
export interface Session {
  era: Era;
  via: Via;
  /** The revision the client negotiated; `initialize` for the 2025 SDK, which does not say. */
  revision: string;
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  listTools(): Promise<{ tools: Array<{ name: string; annotations?: { readOnlyHint?: boolean } }> }>;
  readResource(uri: string): Promise<{ contents: Array<{ uri: string; text?: unknown }> }>;
  /** The questions the server asked (elicitation messages), oldest first. */
  asked: string[];
  /** The server's stderr (stdio only). */
  stderr(): string;
  close(): Promise<void>;
}

/** Where and how to connect. */
export interface Target {
  era: Era;
  via: Via;
  /** stdio: CLI arguments and environment; HTTP: the endpoint and headers. */
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
  /** Declare elicitation and answer every question with this. */
  answer?: Answer;
}

type AnyClient = LegacyClient | ModernClient;

function stdioParams(target: Target) {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run pnpm --filter @customer-api/mcp build`);
  return {
    command: process.execPath,
    args: [MAIN, ...(target.args ?? [])],
    // Every tool unless the target says otherwise (the CLI's default is the 12-tool toolset).
    env: { PATH: process.env.PATH ?? '', MCP_TOOLSETS: 'all', ...target.env },
    stderr: 'pipe' as const,
  };
}

type Answerer = (message: string) => Answer;

async function openLegacy(target: Target, answer: Answerer, onStderr: (s: string) => void) {
  const capabilities = target.answer ? { elicitation: { form: {} } } : {};
  const client = new LegacyClient({ name: 'customer-api-mcp-test-2025', version: '1.0.0' }, { capabilities });
  if (target.answer) client.setRequestHandler(ElicitRequestSchema, (r) => answer(r.params.message));
  if (target.via === 'http') {
    const requestInit = { headers: target.headers ?? {} };
    await client.connect(new LegacyHttp(new URL(target.url ?? ''), { requestInit }));
    return client;
  }
  const transport = new LegacyStdio(stdioParams(target));
  transport.stderr?.on('data', (chunk: Buffer) => onStderr(chunk.toString()));
  await client.connect(transport);
  return client;
}

async function openModern(target: Target, answer: Answerer, onStderr: (s: string) => void) {
  const capabilities = target.answer ? { elicitation: { form: {} } } : {};
  const client = new ModernClient(
    { name: 'customer-api-mcp-test-2026', version: '1.0.0' },
    { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  if (target.answer) client.setRequestHandler('elicitation/create', (r) => answer(r.params.message));
  if (target.via === 'http') {
    const requestInit = { headers: target.headers ?? {} };
    await client.connect(new ModernHttp(new URL(target.url ?? ''), { requestInit }));
    return client;
  }
  const transport = new ModernStdio(stdioParams(target));
  transport.stderr?.on('data', (chunk: Buffer) => onStderr(chunk.toString()));
  await client.connect(transport);
  return client;
}

/** Connects a client of `target.era` over `target.via`. */
export async function connect(target: Target): Promise<Session> {
  let stderr = '';
  const asked: string[] = [];
  const answer: Answerer = (message) => {
    asked.push(message);
    return target.answer ?? { action: 'decline' };
  };
  const onStderr = (chunk: string) => {
    stderr += chunk;
  };
  const client: AnyClient =
    target.era === '2025'
      ? await openLegacy(target, answer, onStderr)
      : await openModern(target, answer, onStderr);
  return {
    era: target.era,
    via: target.via,
    revision: client instanceof ModernClient ? (client.getNegotiatedProtocolVersion() ?? '') : 'initialize',
    asked,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as ToolResult,
    listTools: () => client.listTools(),
    readResource: (uri) => client.readResource({ uri }),
    stderr: () => stderr,
    close: () => client.close(),
  };
}
