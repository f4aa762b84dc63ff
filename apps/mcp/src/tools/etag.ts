import { contract, OPERATION_NAMES, type OperationName, operationMeta } from '@customer-api/contract';
import type { JsonSchema } from './json-schema.js';
import { toolName } from './names.js';
import type { ToolDefinition } from './types.js';

// Conditional requests as a model sees them: reads (and writes) show the resource's `etag`, writes
// on it take `expectedEtag`, and a stale one is an error telling the model to read again.

/** The tool reading the resource of `operation` alone (`get_topic` for `update_topic`), if any. */
export function readToolOf(operation: OperationName): string | undefined {
  const { resource } = operationMeta(operation);
  if (!resource) return undefined;
  const read = OPERATION_NAMES.find(
    (name) => contract[name].method === 'GET' && operationMeta(name).resource === resource,
  );
  return read ? toolName(read) : undefined;
}

/** The tools that take `expectedEtag` on the resource of `operation`. */
export function guardedToolsOf(operation: OperationName): string[] {
  const { resource } = operationMeta(operation);
  if (!resource) return [];
  return OPERATION_NAMES.filter(
    (name) => operationMeta(name).resource === resource && operationMeta(name).ifMatch,
  ).map(toolName);
}

/**
 * The `expectedEtag` argument of the tools whose operation takes `If-Match`. Fifteen tools carry
 * it, so its words are few; the note under a result and the error after a stale tag say more.
 */
export const EXPECTED_ETAG_ARGUMENT: JsonSchema = {
  type: 'string',
  description:
    'The etag from your last read of this resource: the change is made only if nobody changed it since, else PRECONDITION_FAILED. Omit to change it regardless.',
};

/**
 * The `etag` of a result whose operation answers with the resource's tag. Undescribed: output
 * schemas are for validation, and the note under each such result tells the model what to do.
 */
export const ETAG_OUTPUT: JsonSchema = { type: 'string' };

/**
 * The `If-Match` value of an `expectedEtag`: as given when it is a tag (`"…"`, `W/"…"` or `*`);
 * quoted when a model dropped the quotes the API's tags carry.
 */
export function ifMatchOf(expectedEtag: string): string {
  return /^(W\/)?".*"$/.test(expectedEtag) || expectedEtag === '*' ? expectedEtag : `"${expectedEtag}"`;
}

/** The line under a result with an etag, naming the tools that take it. */
export function etagNote(tool: ToolDefinition, etag: string | undefined): string {
  if (etag === undefined) return '';
  const tools = guardedToolsOf(tool.operation);
  if (tools.length === 0) return '';
  return `To change it only if nobody else has meanwhile, pass etag as expectedEtag to ${tools.join(', ')}.`;
}

/** What a model should do after PRECONDITION_FAILED on `tool`. */
export function preconditionHint(tool: ToolDefinition): string {
  const read = readToolOf(tool.operation);
  const again = read
    ? `Call ${read} to read it again, decide whether your change still applies, and call again with its new etag.`
    : 'Read it again, decide whether your change still applies, and call again with its new etag (or none).';
  return `Someone changed this resource since you read it, so nothing was changed. ${again} Do not retry with the old etag.`;
}
