import { AudienceSessionSchema, InteractionSchema, SessionInteractionsSchema } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { send } from '../../test/accounts.js';
import { expectApiError, itEnforcesAuth } from '../../test/http-cases.js';
import type { TestTenant } from '../../test/seed.js';
import { useTestApp } from '../../test/test-app.js';

const t = useTestApp();

async function audienceOf(tenant: TestTenant = t.tenant) {
  const page = await t.seed.page(tenant);
  return t.seed.audience(tenant, page.pageId);
}

async function session(tenant: TestTenant = t.tenant): Promise<string> {
  const audience = await audienceOf(tenant);
  const res = await send(t, 'POST', '/v0/audience_sessions', { audienceId: audience.audienceId }, tenant);
  if (res.statusCode !== 201) throw new Error(res.body);
  return res.json().audienceSessionId;
}

const interactionsUrl = (id: string) => `/v0/audience_sessions/${id}/interactions`;

describe('POST /v0/audience_sessions', () => {
  it('starts a session (201) on an audience, with its page', async () => {
    const audience = await audienceOf();
    const res = await send(t, 'POST', '/v0/audience_sessions', { audienceId: audience.audienceId });
    expect(res.statusCode, res.body).toBe(201);
    const created = AudienceSessionSchema.parse(res.json());
    expect(created).toMatchObject({ audienceId: audience.audienceId, pageId: audience.pageId });
    expect(created.audienceSessionId).toMatch(/^session_[0-9a-z]{26}$/);
    expect((await send(t, 'GET', interactionsUrl(created.audienceSessionId))).json()).toEqual({
      found: true,
      interactions: [],
    });
  });

  it("answers 404 for an unknown audience and another tenant's audience", async () => {
    expectApiError(
      await send(t, 'POST', '/v0/audience_sessions', { audienceId: 'audience_nope' }),
      'NOT_FOUND',
    );
    const theirs = await audienceOf(await t.seed.tenant());
    expectApiError(
      await send(t, 'POST', '/v0/audience_sessions', { audienceId: theirs.audienceId }),
      'NOT_FOUND',
    );
  });

  it('answers 400 without an audienceId', async () => {
    for (const body of [{}, { audienceId: '' }, { audienceId: 1 }, { audienceId: 'a', extra: 1 }]) {
      expectApiError(await send(t, 'POST', '/v0/audience_sessions', body), 'VALIDATION_ERROR');
    }
  });

  itEnforcesAuth(
    t,
    async () => {
      const audience = await audienceOf();
      return {
        method: 'POST',
        url: '/v0/audience_sessions',
        headers: t.auth(),
        payload: { audienceId: audience.audienceId },
      };
    },
    { write: true, hasIds: true },
  );
});

describe('POST /v0/audience_sessions/{audience_session_id}/interactions', () => {
  it('records interactions (201) that read back oldest first', async () => {
    const id = await session();
    const full = {
      componentId: 'cta-1',
      label: 'Book a demo',
      componentContext: 'hero',
      responseText: 'Sure',
      groundingChunkIds: ['chunk-1'],
      options: ['yes', 'no'],
      timestamp: 2_000,
    };
    const res = await send(t, 'POST', interactionsUrl(id), full);
    expect(res.statusCode, res.body).toBe(201);
    expect(InteractionSchema.parse(res.json())).toEqual(full);
    const minimal = await send(t, 'POST', interactionsUrl(id), {
      componentId: 'faq',
      label: 'Open FAQ',
      timestamp: 1_000,
    });
    expect(minimal.json()).toEqual({
      componentId: 'faq',
      label: 'Open FAQ',
      groundingChunkIds: [],
      options: [],
      timestamp: 1_000,
    });
    const before = Date.now();
    const stamped = (await send(t, 'POST', interactionsUrl(id), { componentId: 'now', label: 'Now' })).json();
    expect(stamped.timestamp).toBeGreaterThanOrEqual(before - 1);
    const read = SessionInteractionsSchema.parse((await send(t, 'GET', interactionsUrl(id))).json());
    expect(read.found).toBe(true);
    expect(read.interactions.map((i) => i.componentId)).toEqual(['faq', 'cta-1', 'now']);
  });

  it("answers 404 for an unknown session and another tenant's session", async () => {
    const body = { componentId: 'c', label: 'l' };
    expectApiError(await send(t, 'POST', interactionsUrl('session_nope'), body), 'NOT_FOUND');
    const theirs = await session(await t.seed.tenant());
    expectApiError(await send(t, 'POST', interactionsUrl(theirs), body), 'NOT_FOUND');
  });

  it('answers 400 for missing fields and bad timestamps', async () => {
    const id = await session();
    for (const body of [
      { label: 'l' },
      { componentId: 'c' },
      { componentId: 'c', label: 'l', timestamp: -1 },
      { componentId: 'c', label: 'l', timestamp: 1.5 },
      { componentId: 'c', label: 'l', options: 'yes' },
    ]) {
      expectApiError(await send(t, 'POST', interactionsUrl(id), body), 'VALIDATION_ERROR');
    }
  });

  itEnforcesAuth(
    t,
    async () => ({
      method: 'POST',
      url: interactionsUrl(await session()),
      headers: t.auth(),
      payload: { componentId: 'c', label: 'l' },
    }),
    { write: true, hasIds: true },
  );
});

describe('GET /v0/audience_sessions/{audience_session_id}/interactions', () => {
  it('answers 200 found:false for an unknown session', async () => {
    const res = await send(t, 'GET', interactionsUrl('session_unknown'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ found: false, interactions: [] });
  });

  it("answers found:false for another tenant's session, never its interactions", async () => {
    const other = await t.seed.tenant();
    const theirs = await session(other);
    await send(t, 'POST', interactionsUrl(theirs), { componentId: 'secret', label: 'l' }, other);
    expect((await send(t, 'GET', interactionsUrl(theirs), undefined, other)).json().found).toBe(true);
    expect((await send(t, 'GET', interactionsUrl(theirs))).json()).toEqual({
      found: false,
      interactions: [],
    });
  });

  itEnforcesAuth(
    t,
    async () => ({ method: 'GET', url: interactionsUrl(await session()), headers: t.auth() }),
    {
      write: false,
      hasIds: false,
    },
  );
});
