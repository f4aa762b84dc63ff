import { createClient } from '@customer-api/client';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { type Logger, silentLogger } from '../log.js';
import { buildServer } from '../server.js';
import type { ToolSelection } from '../tools/select.js';

/** Options of {@link runStdio}. */
export interface StdioOptions {
  apiKey: string;
  baseUrl: string;
  selection?: ToolSelection;
  maxResultBytes?: number;
  logger?: Logger;
}

/**
 * Serves MCP over this process's stdin and stdout with one API key. Resolves with a `closed`
 * promise that settles when the client closes stdin (or `close()` is called).
 */
export async function runStdio(
  options: StdioOptions,
): Promise<{ closed: Promise<void>; close: () => Promise<void> }> {
  const logger = options.logger ?? silentLogger;
  const client = createClient({ apiKey: options.apiKey, baseUrl: options.baseUrl });
  const server = buildServer({
    client,
    selection: options.selection,
    maxResultBytes: options.maxResultBytes,
    logger,
  });
  const transport = new StdioServerTransport();
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await server.close();
      await client.close();
      resolveClosed();
    })();
    return closing;
  };
  transport.onclose = () => void close();
  process.stdin.once('end', () => void close());
  await server.connect(transport);
  logger.info('serving MCP on stdio', { baseUrl: options.baseUrl });
  return { closed, close };
}
