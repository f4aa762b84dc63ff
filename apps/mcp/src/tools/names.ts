/** The MCP tool name of an operation: its name in snake_case (`listPages` → `list_pages`). */
export function toolName(operation: string): string {
  return operation.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
