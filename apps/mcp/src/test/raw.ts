import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { MAIN } from './sessions.js';

/** A JSON-RPC response as it is on the wire. */
export interface RpcResponse {
  id?: number | string | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** The per-request `_meta` of revision 2026-07-28. */
export function envelope(capabilities: Record<string, unknown> = { elicitation: { form: {} } }) {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  };
}

/** A 2026-07-28 `tools/call` body; `extra` adds `requestState`, `inputResponses` and so on. */
export function toolCall(id: number, name: string, args: Record<string, unknown>, extra = {}) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, ...extra, _meta: envelope() },
  };
}

/** The standard headers a 2026-07-28 client sends with a request. */
export function modernHeaders(method: string, name?: string): Record<string, string> {
  return {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(name ? { 'mcp-name': name } : {}),
  };
}

/** POSTs one JSON-RPC message and returns the HTTP status and the message it answers with. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; message: RpcResponse }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const data = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
  return { status: res.status, message: JSON.parse(data) as RpcResponse };
}

/** customer-api-mcp over stdio, spoken to line by line. */
export interface RawStdio {
  child: ChildProcessWithoutNullStreams;
  /** Sends a request and waits for the response with its id. */
  request(message: { id: number } & Record<string, unknown>): Promise<RpcResponse>;
  stderr(): string;
}

/** Starts the CLI over stdio with `env` (every tool unless `env` sets MCP_TOOLSETS). */
export function rawStdio(env: Record<string, string>): RawStdio {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', MCP_TOOLSETS: 'all', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const waiting = new Map<
    unknown,
    { resolve: (response: RpcResponse) => void; reject: (e: Error) => void }
  >();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const response = JSON.parse(line) as RpcResponse;
    waiting.get(response.id)?.resolve(response);
  });
  // A server that exits fails the requests still waiting, with what it wrote, instead of leaving
  // them to the test's timeout.
  child.once('exit', (code, signal) => {
    for (const { reject } of waiting.values()) {
      reject(new Error(`the MCP server exited (${signal ?? code}) before answering: ${stderr}`));
    }
  });
  return {
    child,
    stderr: () => stderr,
    request: (message) =>
      new Promise((resolve, reject) => {
        waiting.set(message.id, { resolve, reject });
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
      }),
  };
}
