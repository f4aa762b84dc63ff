import {
  type CreateMessageBody,
  GetMessageSchema,
  MESSAGE_HISTORY_MAX_BYTES,
  MESSAGE_HISTORY_MAX_MESSAGES,
  MESSAGE_MAX_BYTES,
} from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { newId } from '../../lib/ids.js';
import { expectApiError } from '../../test/http-cases.js';
import { query } from '../../test/sql.js';
import { useTestApp } from '../../test/test-app.js';
import * as historyRepo from './history.repo.js';
import * as repo from './messages.repo.js';

const t = useTestApp();

const post = (url: string, payload: CreateMessageBody) =>
  t.app.inject({ method: 'POST', url, headers: t.auth(), payload });
const get = (url: string) => t.app.inject({ url, headers: t.auth() });
const utf8 = (value: unknown) => Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value));

async function setup() {
  const page = await t.seed.page(t.tenant);
  const audience = await t.seed.audience(t.tenant, page.pageId, { supplementaryContext: 'before' });
  const base = `/v0/pages/${page.pageId}/audiences/${audience.audienceId}`;
  return { audience, base, messages: `${base}/messages` };
}

/** An assistant message whose tool call returned `size` characters. */
const withToolResult = (size: number, extra: Partial<CreateMessageBody> = {}): CreateMessageBody => ({
  role: 'assistant',
  content: 'Fetched the page.',
  toolCalls: [{ id: 'tc1', name: 'fetch', status: 'complete', result: { text: 'x'.repeat(size) } }],
  ...extra,
});

/**
 * Writes messages `fromSeq`..`toSeq` straight to the database, as a history stored before the
 * limits (or filled quickly) would be; the first message goes through the API to open the
 * conversation. `timestamp` is the sequence number. Returns the ids.
 */
async function storeDirectly(
  audienceId: string,
  url: string,
  fromSeq: number,
  toSeq: number,
  content: string,
): Promise<string[]> {
  if (fromSeq === 2) await post(url, { role: 'user', content: 'first' });
  const conversation = await repo.findConversation(t.database.db, t.tenant.tenantId, audienceId);
  if (!conversation) throw new Error('no conversation');
  const seqs = Array.from({ length: toSeq - fromSeq + 1 }, (_, i) => fromSeq + i);
  const ids = seqs.map(() => newId('message'));
  // One statement whatever the number of rows: the varying columns as arrays.
  await query(
    t.database.db,
    `INSERT INTO messages
       (id, tenant_id, conversation_id, audience_id, seq, role, content, timestamp_ms, created_at)
     SELECT r.id, $3, $4, $5, r.seq, 'user', $6, r.seq, $7::timestamptz
     FROM unnest($1::text[], $2::int[]) AS r(id, seq)`,
    [ids, seqs, t.tenant.tenantId, conversation.id, audienceId, content, new Date().toISOString()],
  );
  return ids;
}

/** The messages and pending changes of a history read: what the history limit bounds. */
const historyBytes = (body: string) => {
  const { messages, pendingChanges } = GetMessageSchema.parse(JSON.parse(body));
  return utf8({ messages, pendingChanges });
};

describe('size of one message', () => {
  it('answers 400 with the limit in the details for a message over 256 KiB, and stores nothing', async () => {
    const { base, messages } = await setup();
    const oversized: CreateMessageBody[] = [
      withToolResult(300_000),
      // Bytes, not characters: 100,000 three-byte characters pass the body schema yet take 300 kB.
      { role: 'user', content: '€'.repeat(100_000) },
      withToolResult(MESSAGE_MAX_BYTES - 5_000, {
        changes: [{ field: 'supplementaryContext', newValue: 'y'.repeat(10_000), status: 'applied' }],
      }),
    ];
    for (const body of oversized) {
      expect(utf8(body)).toBeLessThan(1024 * 1024);
      const error = expectApiError(await post(messages, body), 'VALIDATION_ERROR');
      expect(error.detail).toMatch(/a message may take at most 262,144 bytes \(256 KiB\)/);
      expect(error.details).toEqual([
        { field: 'body', issues: [{ code: 'validation_failed', message: error.detail, path: [] }] },
      ]);
    }
    const history = GetMessageSchema.parse((await get(messages)).json());
    expect(history).toMatchObject({ conversation: null, messages: [], pendingChanges: [] });
    // The applied change of the rejected message did not reach the audience either.
    expect((await get(base)).json()).toMatchObject({ supplementaryContext: 'before' });

    // Just under the limit is stored: the limit is not lower than documented.
    const fits = await post(messages, withToolResult(MESSAGE_MAX_BYTES - 2_000));
    expect(fits.statusCode).toBe(201);
    expect(utf8(fits.body)).toBeLessThanOrEqual(MESSAGE_MAX_BYTES);
    expect(GetMessageSchema.parse((await get(messages)).json()).messages).toHaveLength(1);
  });
});

describe('size of a history', () => {
  it('answers 400 once 4 MiB are stored, and a read stays within the bound', async () => {
    const { messages } = await setup();
    // About 240 kB each, 40 kB of it a saved change that the read also lists as pending.
    const message = withToolResult(200_000, {
      changes: [{ field: 'metaDescription', newValue: 'd'.repeat(20_000), status: 'saved' }],
    });
    let accepted = 0;
    let refused: Awaited<ReturnType<typeof post>> | undefined;
    while (!refused && accepted < 40) {
      const res = await post(messages, message);
      if (res.statusCode === 201) accepted += 1;
      else refused = res;
    }
    expect(refused, 'no message was refused').toBeDefined();
    const error = expectApiError(refused as NonNullable<typeof refused>, 'VALIDATION_ERROR');
    expect(error.detail).toMatch(/message history is full.*4,194,304 bytes \(4 MiB\)/);
    // The limit is not lower than documented: the accepted messages fill all but one message's worth.
    expect(accepted).toBeGreaterThanOrEqual(Math.floor(MESSAGE_HISTORY_MAX_BYTES / 240_000) - 1);

    const read = await get(messages);
    expect(read.statusCode).toBe(200);
    const history = GetMessageSchema.parse(read.json());
    expect(history.messages).toHaveLength(accepted);
    expect(history.pendingChanges).toHaveLength(accepted);
    // Read in slices of about 256 KiB (one message each here), every tool call whole and in its message.
    expect(
      historyRepo.historySlices(
        Array.from({ length: accepted }, (_, i) => ({ seq: i + 1, jsonBytes: 200_050 })),
      ),
    ).toHaveLength(accepted);
    for (const m of history.messages) {
      expect(m.toolCalls).toEqual([
        expect.objectContaining({ id: 'tc1', result: { text: 'x'.repeat(200_000) } }),
      ]);
    }
    const bytes = historyBytes(read.body);
    expect(bytes).toBeLessThanOrEqual(MESSAGE_HISTORY_MAX_BYTES);
    expect(bytes).toBeGreaterThan(MESSAGE_HISTORY_MAX_BYTES - 2 * 240_000);
    expect(utf8(read.body)).toBeLessThanOrEqual(MESSAGE_HISTORY_MAX_BYTES + utf8(history.context) + 200);
  });

  it('cuts a history stored before the limits to its newest messages within 4 MiB', async () => {
    const { audience, messages } = await setup();
    // 8 MiB, as the API accepted it before the limits.
    const legacy = await storeDirectly(audience.audienceId, messages, 2, 9, 'x'.repeat(1024 * 1024));
    const read = await get(messages);
    expect(read.statusCode).toBe(200);
    const ids = GetMessageSchema.parse(read.json()).messages.map((m) => m.messageId);
    expect(ids).toEqual(legacy.slice(-3));
    expect(historyBytes(read.body)).toBeLessThanOrEqual(MESSAGE_HISTORY_MAX_BYTES);
    expectApiError(await post(messages, { role: 'user', content: 'more' }), 'VALIDATION_ERROR');
  });
});

describe('number of messages in a history', () => {
  it('answers 400 for message 1,001 and reads at most the newest 1,000 of a longer history', async () => {
    const { audience, messages } = await setup();
    await storeDirectly(audience.audienceId, messages, 2, MESSAGE_HISTORY_MAX_MESSAGES - 1, 'ok');
    expect((await post(messages, { role: 'user', content: 'number 1,000' })).statusCode).toBe(201);
    const error = expectApiError(
      await post(messages, { role: 'user', content: 'one more' }),
      'VALIDATION_ERROR',
    );
    expect(error.detail).toMatch(/message history is full: it holds 1,000 messages/);
    let history = GetMessageSchema.parse((await get(messages)).json());
    expect(history.messages).toHaveLength(MESSAGE_HISTORY_MAX_MESSAGES);
    expect(history.messages.at(-1)?.content).toBe('number 1,000');

    // A longer history stored before the limit: the read answers its newest 1,000.
    const first = MESSAGE_HISTORY_MAX_MESSAGES + 1;
    const legacy = await storeDirectly(audience.audienceId, messages, first, first + 199, 'old');
    history = GetMessageSchema.parse((await get(messages)).json());
    expect(history.messages).toHaveLength(MESSAGE_HISTORY_MAX_MESSAGES);
    expect(history.messages.at(-1)?.messageId).toBe(legacy.at(-1));
    expect(history.messages[0]?.timestamp).toBe(201);
  });
});

describe('sizes stored when a message is written', () => {
  it('equal what the database measures afresh, changes and saved changes included, and older rows are measured', async () => {
    const { audience, messages } = await setup();
    const posted = [
      withToolResult(10_000),
      {
        role: 'assistant',
        content: 'Proposed a title — «ça va».',
        reasoning: 'r'.repeat(500),
        contentParts: [{ type: 'text', text: 'part' }],
        changes: [
          { field: 'metaTitle', newValue: 'Saved title', status: 'saved' },
          { field: 'supplementaryContext', newValue: 'y'.repeat(2_000), status: 'applied' },
        ],
      },
      { role: 'user', content: 'plain' },
    ] as CreateMessageBody[];
    for (const body of posted) {
      const res = await post(messages, body);
      expect(res.statusCode, res.body).toBe(201);
    }
    await storeDirectly(audience.audienceId, messages, 4, 5, 'written before sizes were stored');
    const conversation = await repo.findConversation(t.database.db, t.tenant.tenantId, audience.audienceId);
    if (!conversation) throw new Error('no conversation');
    const stored = await query<{ seq: number; jsonBytes: number | null }>(
      t.database.db,
      'SELECT seq, json_bytes AS "jsonBytes" FROM messages WHERE conversation_id = $1 ORDER BY seq',
      [conversation.id],
    );
    expect(stored.map((row) => row.jsonBytes === null)).toEqual([false, false, false, true, true]);

    // Measured afresh with the stored sizes set aside, the total is the same.
    const before = await historyRepo.firstSeqWithin(t.database.db, t.tenant.tenantId, conversation.id, {
      count: 10,
      bytes: 1e9,
    });
    await query(t.database.db, 'UPDATE messages SET json_bytes = NULL WHERE conversation_id = $1', [
      conversation.id,
    ]);
    const afresh = await historyRepo.firstSeqWithin(t.database.db, t.tenant.tenantId, conversation.id, {
      count: 10,
      bytes: 1e9,
    });
    expect(before).toEqual(afresh);
    expect(before?.seq).toBe(1);
    // And it bounds what a read sends.
    const read = await get(messages);
    expect(read.statusCode).toBe(200);
    expect(before?.bytes).toBeGreaterThanOrEqual(historyBytes(read.body));
  });
});
