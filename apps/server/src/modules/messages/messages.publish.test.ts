import { GetMessageSchema } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { expectApiError, itEnforcesAuth } from '../../test/http-cases.js';
import { useTestApp } from '../../test/test-app.js';

const t = useTestApp();

async function conversation(tenant = t.tenant) {
  const page = await t.seed.page(tenant);
  const audience = await t.seed.audience(tenant, page.pageId);
  const messages = `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/messages`;
  const ids: string[] = [];
  for (const content of ['first', 'second']) {
    const res = await t.app.inject({
      method: 'POST',
      url: messages,
      headers: t.auth(tenant.apiKey),
      payload: { role: 'assistant', content },
    });
    ids.push(res.json().messageId);
  }
  return { messages, ids };
}
const publish = (messages: string, id: string, apiKey?: string) =>
  t.app.inject({ method: 'POST', url: `${messages}/${id}/publish`, headers: t.auth(apiKey), payload: {} });

describe('POST …/messages/{message_id}/publish', () => {
  itEnforcesAuth(
    t,
    async (t) => {
      const { messages, ids } = await conversation();
      return { method: 'POST', url: `${messages}/${ids[0]}/publish`, headers: t.auth(), payload: {} };
    },
    { write: true, hasIds: true },
  );

  it("sets the conversation's publishedMessageId and answers the history; another message replaces it", async () => {
    const { messages, ids } = await conversation();
    const [first = '', second = ''] = ids;
    const res = await publish(messages, first);
    expect(res.statusCode, res.body).toBe(200);
    const history = GetMessageSchema.parse(res.json());
    expect(history.conversation?.publishedMessageId).toBe(first);
    expect(history.messages.map((m) => m.content)).toEqual(['first', 'second']);
    const again = GetMessageSchema.parse((await publish(messages, first)).json());
    expect(again.conversation?.updatedAt).toBe(history.conversation?.updatedAt);
    const replaced = GetMessageSchema.parse((await publish(messages, second)).json());
    expect(replaced.conversation?.publishedMessageId).toBe(second);
    const read = await t.app.inject({ url: messages, headers: t.auth() });
    expect(read.json().conversation.publishedMessageId).toBe(second);
  });

  it("answers 404 for an unknown message, another audience's and another tenant's, and publishes nothing", async () => {
    const { messages, ids } = await conversation();
    const elsewhere = await conversation();
    expectApiError(await publish(messages, 'msg_missing'), 'NOT_FOUND');
    expectApiError(await publish(messages, elsewhere.ids[0] ?? ''), 'NOT_FOUND');
    const other = await t.seed.tenant();
    expectApiError(await publish(messages, ids[0] ?? '', other.apiKey), 'NOT_FOUND');
    const read = await t.app.inject({ url: messages, headers: t.auth() });
    expect(read.json().conversation.publishedMessageId).toBeNull();
  });
});
