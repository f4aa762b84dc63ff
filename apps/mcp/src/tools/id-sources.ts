import { contract } from '@customer-api/contract';
import type { AppRoute } from '@ts-rest/core';
import { z } from 'zod';
import type { ToolDefinition } from './types.js';

const MAX_SOURCES = 2;

function unwrap(schema: unknown): unknown {
  let current = schema;
  while (
    current instanceof z.ZodOptional ||
    current instanceof z.ZodNullable ||
    current instanceof z.ZodDefault
  ) {
    current = current.unwrap();
  }
  return current;
}

function keys(schema: unknown): string[] {
  const object = unwrap(schema);
  return object instanceof z.ZodObject ? Object.keys(object.shape) : [];
}

/** Fields of an object and of the objects (or arrays of objects) it holds directly. */
function shallowKeys(schema: unknown): string[] {
  const object = unwrap(schema);
  if (!(object instanceof z.ZodObject)) return [];
  const nested = Object.values(object.shape as Record<string, unknown>).flatMap((child) => {
    const value = unwrap(child);
    return value instanceof z.ZodArray ? keys(value.element) : keys(value);
  });
  return [...Object.keys(object.shape), ...nested];
}

function itemSchema(page: unknown): unknown {
  const items = (unwrap(page) as { shape?: Record<string, unknown> }).shape?.items;
  return items instanceof z.ZodArray ? items.element : undefined;
}

/** Id fields a tool's result shows: of each item for lists, else of the result and what it holds. */
function idsShown(tool: ToolDefinition): Set<string> {
  const responses = (contract[tool.operation] as AppRoute).responses as Record<number, unknown>;
  const body = responses[200] ?? responses[201] ?? responses[202];
  const fields = shallowKeys(tool.meta.paginated ? itemSchema(body) : body);
  return new Set(fields.filter((f) => f.endsWith('Id')));
}

/**
 * Adds "where to get the ids" to descriptions: for each path parameter, up to two tools whose
 * results show that id (lists first, then reads, then creates) and that do not need it
 * themselves. Derived from the contract's schemas, so new operations get hints too. Ids a
 * description already explains (it names the id and a source tool) are left alone.
 */
export function withIdSources(tools: readonly ToolDefinition[]): ToolDefinition[] {
  const rank = (t: ToolDefinition) => (t.meta.paginated ? 0 : t.meta.kind === 'read' ? 1 : 2);
  const candidates = tools
    .filter((t) => t.meta.kind === 'read' || t.meta.kind === 'create')
    .map((t) => ({ tool: t, ids: idsShown(t), rank: rank(t) }))
    .sort((a, b) => a.rank - b.rank);
  return tools.map((tool) => {
    const hints: string[] = [];
    for (const [arg, binding] of Object.entries(tool.bindings)) {
      if (binding.part !== 'params') continue;
      const sources = candidates
        .filter((c) => c.tool !== tool && c.ids.has(arg) && c.tool.bindings[arg] === undefined)
        .slice(0, MAX_SOURCES)
        .map((c) => c.tool.name);
      const explained = tool.description.includes(arg) && sources.some((s) => tool.description.includes(s));
      if (sources.length > 0 && !explained) hints.push(`${arg} from ${sources.join(' or ')}`);
    }
    return hints.length > 0
      ? { ...tool, description: `${tool.description} Ids: ${hints.join('; ')}.` }
      : tool;
  });
}
