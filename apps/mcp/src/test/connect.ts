import { createClient } from '@customer-api/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type BuildServerOptions, buildServer } from '../server.js';

/** An SDK client talking to a fresh server over an in-memory transport pair. */
export interface Connected {
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** Connects an SDK `Client` to `buildServer` through `InMemoryTransport.createLinkedPair()`. */
export async function connectInMemory(
  api: { baseUrl: string; apiKey: string; maxRetries?: number },
  options: Omit<BuildServerOptions, 'client'> = {},
): Promise<Connected> {
  const apiClient = createClient({
    baseUrl: api.baseUrl,
    apiKey: api.apiKey,
    maxRetries: api.maxRetries ?? 0,
  });
  const server = buildServer({ client: apiClient, ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'customer-api-mcp-test', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: async () => {
      await client.close();
      await server.close();
      await apiClient.close();
    },
  };
}

/** The text of a result's first content block. */
export function textOf(result: CallToolResult, index = 0): string {
  const block = result.content[index];
  return block?.type === 'text' ? block.text : '';
}

/** The error object embedded in an error result's text. */
export function errorObjectOf(result: CallToolResult): Record<string, unknown> {
  const text = textOf(result);
  const marker = 'Error object: ';
  return JSON.parse(text.slice(text.indexOf(marker) + marker.length)) as Record<string, unknown>;
}
