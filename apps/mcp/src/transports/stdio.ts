import { createClient } from '@customer-api/client';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Confirmation } from '../confirm.js';
import { createScopeLookup, mayWrite, type ScopeLookup } from '../key-scopes.js';
import { errorFields, type Logger, silentLogger } from '../log.js';
import { buildServer } from '../server.js';
import type { ToolSelection } from '../tools/select.js';

/** Options of {@link runStdio}. */
export interface StdioOptions {
  apiKey: string;
  baseUrl: string;
  selection?: ToolSelection;
  maxResultBytes?: number;
  confirmation?: Confirmation;
  logger?: Logger;
  /** Where the key's scopes are asked (default: the API, once a minute at most). */
  scopeLookup?: ScopeLookup;
}

/**
 * Serves MCP over this process's stdin and stdout with one API key, to 2026-07-28 clients
 * (`server/discover`, per-request `_meta`) and 2025 clients (`initialize`) alike: the opening
 * message pins the connection's revision. Resolves with a `closed` promise that settles when the
 * client closes stdin (or `close()` is called).
 */
export async function runStdio(
  options: StdioOptions,
): Promise<{ closed: Promise<void>; close: () => Promise<void> }> {
  const logger = options.logger ?? silentLogger;
  const client = createClient({ apiKey: options.apiKey, baseUrl: options.baseUrl });
  const lookup = options.scopeLookup ?? createScopeLookup({ baseUrl: options.baseUrl });
  const handle = serveStdio(
    () =>
      buildServer({
        client,
        selection: options.selection,
        maxResultBytes: options.maxResultBytes,
        confirmation: options.confirmation,
        logger,
        canWrite: () => mayWrite(lookup, options.apiKey),
      }),
    { onerror: (error) => logger.debug('stdio connection error', errorFields(error)) },
  );
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  // Set before the first await: the SDK closes the server, which closes the transport, which may
  // report the close again; the flag makes every later call wait on the first.
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    if (closing) return closing;
    let finish: () => void = () => {};
    closing = new Promise<void>((resolve) => {
      finish = resolve;
    });
    void (async () => {
      await handle.close().catch((error: unknown) => logger.warn('closing stdio failed', errorFields(error)));
      await client.close();
      resolveClosed();
      finish();
    })();
    return closing;
  };
  process.stdin.once('end', () => void close());
  process.stdin.once('close', () => void close());
  logger.info('serving MCP on stdio', { baseUrl: options.baseUrl });
  return { closed, close };
}
