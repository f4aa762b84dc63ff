import type { IncomingMessage } from 'node:http';
import { deriveTools } from '../tools/derive.js';
import { SelectionError, selectTools, type ToolSelection } from '../tools/select.js';

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return (Array.isArray(value) ? value.join(',') : value)?.trim() || undefined;
}

/**
 * The tool selection of one HTTP request: `X-MCP-Toolsets` replaces the server's toolsets for
 * this request (`default`, `all` or groups, as `--toolsets`), `X-MCP-Readonly: true` makes it
 * read-only. The server's own `--read-only` and `--tools` stay limits no header lifts.
 * @throws SelectionError naming the bad header value.
 */
export function requestSelection(request: IncomingMessage, server: ToolSelection = {}): ToolSelection {
  const toolsets = header(request, 'x-mcp-toolsets');
  const readOnly = header(request, 'x-mcp-readonly')?.toLowerCase();
  if (readOnly !== undefined && !['true', '1', 'false', '0'].includes(readOnly))
    throw new SelectionError('X-MCP-Readonly must be true or false');
  if (toolsets === undefined && readOnly === undefined) return server;
  const selection: ToolSelection = {
    ...server,
    readOnly: server.readOnly === true || readOnly === 'true' || readOnly === '1',
    toolsets:
      toolsets === undefined
        ? server.toolsets
        : toolsets
            .split(',')
            .map((name) => name.trim())
            .filter(Boolean),
  };
  try {
    selectTools(deriveTools(), selection);
  } catch (error) {
    if (error instanceof SelectionError)
      throw new SelectionError(`X-MCP-Toolsets / X-MCP-Readonly: ${error.message}`);
    throw error;
  }
  return selection;
}
