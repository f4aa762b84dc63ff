import { JSON_OPERATION_NAMES, operationMeta, RESOURCE_GROUPS } from '@customer-api/contract';
import { type ToolDefinition, toolName, toolsetSlug } from './derive.js';

/** Which tools a server exposes. Every switch only narrows: a tool is listed when it passes all of them. */
export interface ToolSelection {
  /** Only tools that change nothing (`readOnlyHint: true`). */
  readonly readOnly?: boolean;
  /** Only tools of these toolsets ({@link TOOLSET_NAMES}: `default`, `all` or groups); all when unset. */
  readonly toolsets?: readonly string[];
  /** Only these tools, by name; all when unset. */
  readonly tools?: readonly string[];
}

/**
 * Toolset slugs: the specification's resource groups that have operations, in kebab case
 * (`pages`, `account-logs`, …). A group without operations would select no tool.
 */
export const TOOLSETS: readonly string[] = RESOURCE_GROUPS.filter((group) =>
  JSON_OPERATION_NAMES.some((name) => operationMeta(name).group === group),
).map(toolsetSlug);

/**
 * The default toolset: the operations the contract marks `defaultTool` (the ones assistants use
 * most), in contract order. Reads of pages, audiences, conversations, accounts and topics, and two
 * writes: adding to a conversation and logging account activity; everything else is one
 * `--toolsets` away.
 */
export const DEFAULT_TOOLSET: readonly string[] = JSON_OPERATION_NAMES.filter(
  (name) => operationMeta(name).defaultTool,
).map(toolName);

/** Names accepted by `--toolsets` besides the resource groups: `default` and `all`. */
export const TOOLSET_NAMES: readonly string[] = ['default', 'all', ...TOOLSETS];

/** Raised for a selection naming unknown toolsets or tools, or selecting nothing. */
export class SelectionError extends Error {
  override name = 'SelectionError';
}

/**
 * Applies a selection to the derived tools.
 * @throws SelectionError when a toolset or tool name is unknown, or when nothing is left.
 */
export function selectTools(all: readonly ToolDefinition[], selection: ToolSelection = {}): ToolDefinition[] {
  const sets = selection.toolsets;
  const unknownSets = (sets ?? []).filter((slug) => !TOOLSET_NAMES.includes(slug));
  if (unknownSets.length > 0) {
    throw new SelectionError(
      `Unknown toolset ${unknownSets.join(', ')}; toolsets: ${TOOLSET_NAMES.join(', ')}`,
    );
  }
  const inToolsets = (tool: ToolDefinition) =>
    sets === undefined ||
    sets.includes('all') ||
    sets.includes(tool.toolset) ||
    (sets.includes('default') && DEFAULT_TOOLSET.includes(tool.name));
  const names = new Set(all.map((tool) => tool.name));
  const unknownTools = (selection.tools ?? []).filter((name) => !names.has(name));
  if (unknownTools.length > 0) {
    throw new SelectionError(`Unknown tool ${unknownTools.join(', ')}; tools: ${[...names].join(', ')}`);
  }
  const selected = all.filter(
    (tool) =>
      (!selection.readOnly || tool.annotations.readOnlyHint === true) &&
      inToolsets(tool) &&
      (selection.tools === undefined || selection.tools.includes(tool.name)),
  );
  if (selected.length === 0) throw new SelectionError('The selection leaves no tools');
  return selected;
}
