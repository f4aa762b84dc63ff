import { createClient } from '@customer-api/client';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { createConfirmation } from './confirm.js';
import { modernHeaders, post, toolCall } from './test/raw.js';
import { type Answer, connect, type Era, type Session, type Via } from './test/sessions.js';
import { type RunningHttpServer, startHttpServer } from './transports/http.js';

const api = inject('api');
const SECRET = 'a-confirmation-secret-of-32-bytes-at-least';
const servers: RunningHttpServer[] = [];
const open: Session[] = [];
const apiClient = createClient({ baseUrl: api.baseUrl, apiKey: api.apiKey, maxRetries: 0 });
let http: RunningHttpServer;

async function httpServer(secret = SECRET, ttlSeconds?: number): Promise<RunningHttpServer> {
  const confirmation = createConfirmation({ secret, ttlSeconds });
  // The API's scopes are not asked: the state's binding to its key is what must refuse another key.
  const server = await startHttpServer({
    baseUrl: api.baseUrl,
    port: 0,
    host: '127.0.0.1',
    confirmation,
    scopeLookup: async () => undefined,
  });
  servers.push(server);
  return server;
}

beforeAll(async () => {
  http = await httpServer();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await apiClient.close();
});

async function newPage(): Promise<string> {
  const page = await apiClient.createPage({
    body: {
      name: `confirm-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`,
      title: 'To delete',
      pageContext: 'confirmation test',
      brandId: 'brand_confirm',
      pageType: 'inbound',
    },
  });
  return page.pageId;
}

async function isDeleted(pageId: string): Promise<boolean> {
  const page = await apiClient.getPage({ params: { page_id: pageId } });
  return page.deletedAt !== null && page.deletedAt !== undefined;
}

async function session(era: Era, via: Via, answer?: Answer, env: Record<string, string> = {}) {
  const s = await connect(
    via === 'http'
      ? { era, via, url: http.url, headers: { 'x-api-key': api.apiKey }, answer }
      : {
          era,
          via,
          answer,
          env: { CUSTOMER_API_KEY: api.apiKey, CUSTOMER_API_BASE_URL: api.baseUrl, ...env },
        },
  );
  open.push(s);
  return s;
}

const ACCEPT: Answer = { action: 'accept', content: { confirm: true } };
const UNTICKED: Answer = { action: 'accept', content: { confirm: false } };
const DECLINE: Answer = { action: 'decline' };

describe('confirmation of deletes', () => {
  it.each([
    // 2026-07-28: an input_required round trip; 2025 over stdio: elicitation/create.
    { era: '2026-07-28', via: 'http', answer: ACCEPT, user: 'confirms', asks: true, deletes: true },
    { era: '2026-07-28', via: 'stdio', answer: ACCEPT, user: 'confirms', asks: true, deletes: true },
    { era: '2025', via: 'stdio', answer: ACCEPT, user: 'confirms', asks: true, deletes: true },
    { era: '2026-07-28', via: 'http', answer: DECLINE, user: 'declines', asks: true, deletes: false },
    {
      era: '2026-07-28',
      via: 'stdio',
      answer: UNTICKED,
      user: 'leaves it unticked',
      asks: true,
      deletes: false,
    },
    { era: '2025', via: 'stdio', answer: DECLINE, user: 'declines', asks: true, deletes: false },
    // Stateless 2025 HTTP has no way back to the client; clients that cannot ask: as before.
    { era: '2025', via: 'http', answer: ACCEPT, user: 'confirms', asks: false, deletes: true },
    {
      era: '2026-07-28',
      via: 'http',
      answer: undefined,
      user: 'cannot be asked',
      asks: false,
      deletes: true,
    },
    { era: '2025', via: 'stdio', answer: undefined, user: 'cannot be asked', asks: false, deletes: true },
  ] as const)(
    '$era over $via, the user $user: asked $asks, deleted $deletes',
    async ({ era, via, answer, asks, deletes }) => {
      const pageId = await newPage();
      const s = await session(era, via, answer);
      const result = await s.call('delete_page', { pageId });
      expect(s.asked.length).toBe(asks ? 1 : 0);
      if (asks) expect(s.asked[0]).toContain(pageId);
      expect(result.isError ?? false).toBe(!deletes);
      if (!deletes) {
        const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
        expect(text).toMatch(
          /^delete_page failed: NOT_CONFIRMED: The user did not confirm delete_page; nothing was changed/,
        );
      }
      expect(await isDeleted(pageId)).toBe(deletes);
    },
  );

  it('never asks before reads, creates or updates', async () => {
    const s = await session('2026-07-28', 'http', ACCEPT);
    const pageId = await newPage();
    expect((await s.call('get_page', { pageId })).isError).toBeFalsy();
    expect((await s.call('archive_page', { pageId })).isError).toBeFalsy();
    expect(s.asked).toEqual([]);
  });

  it('asks nothing with MCP_CONFIRM=0', async () => {
    const pageId = await newPage();
    const s = await session('2026-07-28', 'stdio', ACCEPT, { MCP_CONFIRM: '0' });
    expect((await s.call('delete_page', { pageId })).isError).toBeFalsy();
    expect(s.asked).toEqual([]);
    expect(await isDeleted(pageId)).toBe(true);
  });
});

describe('the signed confirmation state', () => {
  const key = { 'x-api-key': api.apiKey };
  const deleteHeaders = { ...key, ...modernHeaders('tools/call', 'delete_page') };

  async function firstRound(url: string, pageId: string): Promise<string> {
    const { message } = await post(url, toolCall(1, 'delete_page', { pageId }), deleteHeaders);
    expect(message.result).toMatchObject({ resultType: 'input_required', inputRequests: { confirm: {} } });
    return String(message.result?.requestState);
  }

  function secondRound(url: string, pageId: string, requestState: string, headers = deleteHeaders) {
    const inputResponses = { confirm: { action: 'accept', content: { confirm: true } } };
    return post(url, toolCall(2, 'delete_page', { pageId }, { requestState, inputResponses }), headers);
  }

  it('lets another process answer the second round: no server memory between rounds', async () => {
    const other = await httpServer();
    const pageId = await newPage();
    const state = await firstRound(http.url, pageId);
    const { message } = await secondRound(other.url, pageId, state);
    expect(message.result?.isError).toBeFalsy();
    expect(await isDeleted(pageId)).toBe(true);
  });

  it.each([
    [
      'altered',
      (s: string) => `${s.slice(0, -2)}${s.endsWith('AA') ? 'BB' : 'AA'}`,
      /altered or was not issued/,
    ],
    ['forged', () => 'v1.eyJwIjp7InRvb2wiOiJkZWxldGVfcGFnZSJ9fQ.c2lnbmF0dXJl', /altered or was not issued/],
  ])('refuses %s state with -32602 and deletes nothing', async (_name, tamper, message) => {
    const pageId = await newPage();
    const state = await firstRound(http.url, pageId);
    const { message: answer } = await secondRound(http.url, pageId, tamper(state));
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.message).toMatch(message);
    expect(answer.error?.message).toContain('Call delete_page again without requestState');
    expect(await isDeleted(pageId)).toBe(false);
  });

  it('asks again when the retry carries the state but no answer, deleting nothing', async () => {
    const pageId = await newPage();
    const state = await firstRound(http.url, pageId);
    const body = toolCall(2, 'delete_page', { pageId }, { requestState: state });
    const { message } = await post(http.url, body, deleteHeaders);
    expect(message.result).toMatchObject({ resultType: 'input_required', inputRequests: { confirm: {} } });
    expect(await isDeleted(pageId)).toBe(false);
  });

  it('refuses state replayed for another page, or signed by another server', async () => {
    const [first, second] = [await newPage(), await newPage()];
    const state = await firstRound(http.url, first);
    const replayed = await secondRound(http.url, second, state);
    expect(replayed.message.error?.message).toMatch(/issued for another tool or other arguments/);
    const stranger = await httpServer('another-secret-that-is-32-bytes-long!!');
    const foreign = await secondRound(stranger.url, first, state);
    expect(foreign.message.error?.message).toMatch(/altered or was not issued by this server/);
    expect([await isDeleted(first), await isDeleted(second)]).toEqual([false, false]);
  });

  it('refuses expired state', async () => {
    const hasty = await httpServer(SECRET, -1);
    const pageId = await newPage();
    const state = await firstRound(hasty.url, pageId);
    const { message } = await secondRound(hasty.url, pageId, state);
    expect(message.error?.code).toBe(-32602);
    expect(message.error?.message).toMatch(/it expired/);
    expect(await isDeleted(pageId)).toBe(false);
  });

  it('refuses state issued to another API key', async () => {
    const pageId = await newPage();
    const state = await firstRound(http.url, pageId);
    const headers = { ...deleteHeaders, 'x-api-key': api.readOnlyKey };
    const { message } = await secondRound(http.url, pageId, state, headers);
    expect(message.error?.message).toMatch(/issued to another API key/);
    expect(await isDeleted(pageId)).toBe(false);
  });
});
