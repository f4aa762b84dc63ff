import type { Change, Message } from '@customer-api/contract';
import { holdingJsonText, JsonText } from '../../lib/json-text.js';
import type { HistoryMessageRow } from './history.repo.js';
import type { ChangeRow } from './messages.repo.js';

export const toChange = (row: ChangeRow): Change => ({
  changeId: row.id,
  field: row.field,
  previousValue: row.previousValue,
  newValue: row.newValue,
  status: row.status,
});

type MessageFields = Omit<HistoryMessageRow, 'toolCallsJson' | 'contentPartsJson'>;

export function toMessage(
  row: MessageFields,
  json: Pick<Message, 'toolCalls' | 'contentParts'>,
  changes: ChangeRow[] | null,
): Message {
  return {
    messageId: row.id,
    role: row.role,
    content: row.content,
    timestamp: row.timestampMs,
    hasSnapshot: row.hasSnapshot,
    toolCalls: json.toolCalls,
    changes: changes ? changes.map(toChange) : null,
    contentParts: json.contentParts,
    reasoning: row.reasoning,
    isInterrupted: row.isInterrupted,
  };
}

/** A stored message as a history read sends it: its JSON columns as the text stored. */
export const historyMessage = (row: HistoryMessageRow, changes: ChangeRow[] | null): Message =>
  holdingJsonText(
    toMessage(
      row,
      {
        toolCalls: JsonText.of<NonNullable<Message['toolCalls']>>(row.toolCallsJson),
        contentParts: JsonText.of<NonNullable<Message['contentParts']>>(row.contentPartsJson),
      },
      changes,
    ),
  );
