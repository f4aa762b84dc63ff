import type { JsonSchema } from './json-schema.js';

/** Messages `get_audience_messages` and the history resource show unless `limit` says otherwise. */
export const DEFAULT_MESSAGES_LIMIT = 20;

/** Largest `limit` of `get_audience_messages`. */
export const MAX_MESSAGES_LIMIT = 100;

/** The tool's own arguments: the API returns the whole history, the MCP server windows it. */
export const MESSAGE_WINDOW_ARGUMENTS: Readonly<Record<string, JsonSchema>> = {
  limit: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_MESSAGES_LIMIT,
    default: DEFAULT_MESSAGES_LIMIT,
    description: `How many messages to return, newest first (1 to ${MAX_MESSAGES_LIMIT}, default ${DEFAULT_MESSAGES_LIMIT}).`,
  },
  before: {
    type: 'string',
    description:
      'Return only messages older than this messageId: pass nextBefore of the previous result to read further back. Omit for the newest.',
  },
};

/** What the window adds to the history's result (declared in the output schema). */
export const MESSAGE_WINDOW_OUTPUT: Readonly<Record<string, JsonSchema>> = {
  totalMessages: { type: 'integer', description: 'How many messages the history holds in all.' },
  nextBefore: {
    anyOf: [{ type: 'string' }, { type: 'null' }],
    description: 'Pass as before to read older messages; null when the oldest message is shown.',
  },
};

interface MessageLike {
  messageId: string;
}

/** A history cut to a window of its messages, newest first. */
export type MessageWindow = Record<string, unknown> & {
  messages: MessageLike[];
  totalMessages: number;
  nextBefore: string | null;
};

/**
 * The `limit` messages older than `before` (or the newest), newest first, with the count of all
 * messages and the `before` that continues after the oldest one shown.
 * @returns `undefined` when `before` names no message of the history.
 */
export function windowMessages(history: unknown, limit: number, before?: string): MessageWindow | undefined {
  const data = history as Record<string, unknown> & { messages: MessageLike[] };
  const all = data.messages;
  const end = before === undefined ? all.length : all.findIndex((m) => m.messageId === before);
  if (end < 0) return undefined;
  const start = Math.max(0, end - limit);
  const messages = all.slice(start, end).reverse();
  return { ...data, messages, totalMessages: all.length, nextBefore: continueAfter(messages, start > 0) };
}

/** The `before` that continues after the last (oldest) message shown, when older ones exist. */
export function continueAfter(shown: readonly MessageLike[], older: boolean): string | null {
  return older ? (shown.at(-1)?.messageId ?? null) : null;
}
