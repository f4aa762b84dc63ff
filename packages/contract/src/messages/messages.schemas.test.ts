import { describe, expect, it } from 'vitest';
import { ChangeSchema } from './changes.schemas.js';
import {
  ConversationSchema,
  CreateMessageBodySchema,
  GetMessageSchema,
  MessageSchema,
  RestoreMessageResultSchema,
} from './messages.schemas.js';
import { ContentPartSchema, ToolCallSchema } from './parts.schemas.js';

const at = '2026-01-01T00:00:00.000Z';
const change = {
  changeId: 'change_1',
  field: 'metaTitle',
  previousValue: null,
  newValue: 'New',
  status: 'applied',
};
const message = {
  messageId: 'message_1',
  role: 'assistant',
  content: 'Done',
  timestamp: 1767225600000,
  hasSnapshot: true,
  toolCalls: null,
  changes: [change],
  contentParts: null,
  reasoning: null,
  isInterrupted: false,
};
const conversation = {
  conversationId: 'conversation_1',
  audienceId: 'audience_1',
  publishedMessageId: null,
  createdAt: at,
  updatedAt: at,
};
const context = {
  audienceId: 'audience_1',
  pageId: 'page_1',
  pageContext: 'ctx',
  currentSupplementaryContext: null,
  currentMetaTitle: null,
  currentMetaDescription: null,
  currentMetaKeywords: null,
};

describe('messages (no extra fields allowed)', () => {
  it('accept a complete message and reject a missing or extra field', () => {
    expect(MessageSchema.safeParse(message).success).toBe(true);
    for (const key of Object.keys(message)) {
      const { [key]: _dropped, ...rest } = message as Record<string, unknown>;
      expect(MessageSchema.safeParse(rest).success, key).toBe(false);
    }
    expect(MessageSchema.safeParse({ ...message, extra: 1 }).success).toBe(false);
    expect(MessageSchema.safeParse({ ...message, role: 'system' }).success).toBe(false);
  });

  it('check conversations strictly, allowing null as the whole conversation', () => {
    expect(ConversationSchema.safeParse(conversation).success).toBe(true);
    expect(ConversationSchema.safeParse({ ...conversation, title: 'x' }).success).toBe(false);
    const history = { conversation: null, messages: [], context, pendingChanges: [] };
    expect(GetMessageSchema.safeParse(history).success).toBe(true);
    expect(GetMessageSchema.safeParse({ ...history, conversation }).success).toBe(true);
    const { currentMetaKeywords: _k, ...partialContext } = context;
    expect(GetMessageSchema.safeParse({ ...history, context: partialContext }).success).toBe(false);
  });

  it('restrict change fields and statuses, strictly', () => {
    expect(ChangeSchema.safeParse(change).success).toBe(true);
    expect(ChangeSchema.safeParse({ ...change, field: 'title' }).success).toBe(false);
    expect(ChangeSchema.safeParse({ ...change, status: 'pending' }).success).toBe(false);
    expect(ChangeSchema.safeParse({ ...change, note: 'x' }).success).toBe(false);
  });

  it('restrict tool call status and allow optional arguments, result and error only', () => {
    const call = { id: 't1', name: 'search', status: 'running' };
    expect(ToolCallSchema.safeParse(call).success).toBe(true);
    expect(ToolCallSchema.safeParse({ ...call, arguments: { q: 1 }, result: [1], error: 'e' }).success).toBe(
      true,
    );
    expect(ToolCallSchema.safeParse({ ...call, status: 'failed' }).success).toBe(false);
    expect(ToolCallSchema.safeParse({ ...call, startedAt: at }).success).toBe(false);
  });
});

describe('content parts', () => {
  it('accept the four variants with their required fields', () => {
    const parts = [
      { type: 'text', text: 'hi' },
      { type: 'tool-call', toolCallId: 't1' },
      { type: 'artifact', artifactId: 'a', path: '/p', title: 'T', kind: 'email' },
      { type: 'artifact', artifactId: 'a', path: '/p', title: 'T', kind: 'document', previewText: null },
      {
        type: 'error',
        variant: 'provider-outage',
        title: 'T',
        message: 'm',
        provider: 'x',
        statusPageUrl: 'u',
      },
    ];
    for (const part of parts) expect(ContentPartSchema.safeParse(part).success, part.type).toBe(true);
  });

  it('reject unknown types, wrong enums, missing fields and extra fields', () => {
    const bad = [
      { type: 'image', url: 'u' },
      { type: 'text' },
      { type: 'artifact', artifactId: 'a', path: '/p', title: 'T', kind: 'video' },
      { type: 'error', variant: 'fatal', title: 'T', message: 'm' },
      { type: 'text', text: 'hi', toolCallId: 'x' },
    ];
    for (const part of bad)
      expect(ContentPartSchema.safeParse(part).success, JSON.stringify(part)).toBe(false);
  });
});

describe('message writes and restore', () => {
  it('create body needs role and content; changes come without changeId', () => {
    expect(CreateMessageBodySchema.safeParse({ role: 'user', content: 'x' }).success).toBe(true);
    expect(CreateMessageBodySchema.safeParse({ content: 'x' }).success).toBe(false);
    const withChange = {
      role: 'assistant',
      content: 'x',
      changes: [{ field: 'metaTitle', newValue: 'T', status: 'applied' }],
    };
    expect(CreateMessageBodySchema.safeParse(withChange).success).toBe(true);
    const forged = { ...withChange, changes: [{ ...withChange.changes[0], changeId: 'change_1' }] };
    expect(CreateMessageBodySchema.safeParse(forged).success).toBe(false);
  });

  it('restore result requires success and messageId', () => {
    expect(RestoreMessageResultSchema.safeParse({ success: true, messageId: 'm' }).success).toBe(true);
    expect(RestoreMessageResultSchema.safeParse({ success: true }).success).toBe(false);
    expect(RestoreMessageResultSchema.safeParse({ messageId: 'm' }).success).toBe(false);
  });
});
