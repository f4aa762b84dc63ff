import type { JsonOperationName, OperationMeta } from '@customer-api/contract';
import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type { JsonSchema } from './json-schema.js';

// The tool definitions' types: the tools' modules import them from here, so that derive.ts, which
// builds the definitions from the contract, and the modules it uses do not import one another.

/** Where one tool argument goes in the HTTP request. */
export interface ArgBinding {
  /** `params` (path), `query` or `body`. */
  readonly part: 'params' | 'query' | 'body';
  /** The name in that part, e.g. `page_id` for the tool argument `pageId`. */
  readonly key: string;
}

/** Field selection offered by a read tool through its optional `fields` argument. */
export interface FieldSelection {
  /** `items` selects fields of each item of a page of results; `root` of the result itself. */
  readonly target: 'items' | 'root';
  /** The names that may be selected. */
  readonly names: readonly string[];
  /** What a list returns when `fields` is not given (see summary.ts); absent: every field. */
  readonly summary?: readonly string[];
  /** The tool that reads one item in full (`get_page` for `list_pages`), when there is one. */
  readonly detail?: string;
}

/**
 * An argument given as JSON text because its value is free-form JSON (`payloadJson` for the
 * contract's `payload`): at `path` (property names, `*` for each array element), `arg` carries
 * the JSON text of `name`.
 */
export interface JsonArgument {
  readonly path: readonly string[];
  /** The contract's name, e.g. `payload`. */
  readonly name: string;
  /** The tool argument's name, e.g. `payloadJson`. */
  readonly arg: string;
}

/** One MCP tool, derived from one contract operation. */
export interface ToolDefinition {
  /** snake_case of the operation name, e.g. `list_pages`. */
  readonly name: string;
  /** The contract operation (and client method) it calls, e.g. `listPages`. */
  readonly operation: JsonOperationName;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema: JsonSchema;
  readonly annotations: ToolAnnotations;
  /** Resource group, kind and safety hints of the operation. */
  readonly meta: OperationMeta;
  /** The toolset slug of the operation's resource group, e.g. `audience-messages`. */
  readonly toolset: string;
  /** Tool argument name (the contract's, before JSON-text arguments are decoded) → place in the request. */
  readonly bindings: Readonly<Record<string, ArgBinding>>;
  readonly fields: FieldSelection | undefined;
  /** Arguments given as JSON text, decoded before the call (see portable.ts). */
  readonly jsonArguments: readonly JsonArgument[];
  /** True for `get_audience_messages`: `limit`/`before` window the history, newest first. */
  readonly messageWindow: boolean;
}
