export { ConfigError, DEFAULT_HTTP_PORT, type McpConfig, parseConfig, USAGE } from './config.js';
export {
  CONFIRM_TTL_SECONDS,
  type Confirmation,
  type ConfirmationOptions,
  createConfirmation,
} from './confirm.js';
export { createLogger, type Logger, type LogLevel, silentLogger } from './log.js';
export { AUDIENCE_MESSAGES_URI, PAGE_URI, registerResources } from './resources.js';
export {
  type BuildServerOptions,
  buildServer,
  CACHE_HINTS,
  INSTRUCTIONS,
  listEntry,
  SERVER_NAME,
} from './server.js';
export { type CallContext, callTool } from './tools/call.js';
export {
  type ArgBinding,
  DEFAULT_LIST_LIMIT,
  deriveTool,
  deriveTools,
  type FieldSelection,
  OUTPUT_SCHEMA_DEPTH,
  type ToolDefinition,
  toolName,
  toolsetSlug,
} from './tools/derive.js';
export { DEFAULT_MAX_RESULT_BYTES } from './tools/result.js';
export { SelectionError, selectTools, TOOLSETS, type ToolSelection } from './tools/select.js';
export {
  apiKeyOf,
  createHttpHandler,
  type HttpOptions,
  MCP_PATH,
  type RunningHttpServer,
  startHttpServer,
} from './transports/http.js';
export { runStdio, type StdioOptions } from './transports/stdio.js';

import { JSON_OPERATION_NAMES } from '@customer-api/contract';
import { toolName } from './tools/derive.js';

/** Every tool name, one per contract operation, in contract order. */
export const TOOL_NAMES: readonly string[] = JSON_OPERATION_NAMES.map(toolName);
