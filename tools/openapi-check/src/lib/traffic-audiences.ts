import { type Driver, str } from './traffic-call.js';

/**
 * A page's audience (`p` is the page's path): its versions created, published and cancelled, its
 * messages (the canonical one with changes, restored and published), a session with an
 * interaction, and the audience archived and restored.
 */
export async function driveAudiences({ rec, key, call }: Driver, p: string): Promise<void> {
  const audience = await call({
    operation: 'createAudience',
    method: 'POST',
    path: `${p}/audiences`,
    expect: 201,
    body: { customName: 'Logistics leads', supplementaryContext: 'Visitors from logistics companies.' },
  });
  const a = `${p}/audiences/${str(audience, 'audienceId')}`;
  await call({ operation: 'getAudience', method: 'GET', path: a, expect: 200 });
  await call({ operation: 'listAudiences', method: 'GET', path: `${p}/audiences`, expect: 200 });
  const v1 = await call({
    operation: 'createAudienceVersion',
    method: 'POST',
    path: `${a}/versions`,
    expect: 201,
    body: {},
  });
  await call({
    operation: 'publishAudienceVersion',
    method: 'POST',
    path: `${a}/versions/${str(v1, 'versionId')}/publish`,
    expect: 200,
    body: {},
  });
  const v2 = await rec.send({
    operation: 'createAudienceVersion',
    method: 'POST',
    path: `${a}/versions`,
    expect: 201,
    key,
    body: { supplementaryContext: 'Freight forwarders.' },
  });
  await rec.send({
    operation: 'publishAudienceVersion',
    method: 'POST',
    path: `${a}/versions/${str(v2.body, 'versionId')}/publish`,
    expect: 200,
    key,
    body: {},
  });
  const v3 = await rec.send({
    operation: 'createAudienceVersion',
    method: 'POST',
    path: `${a}/versions`,
    expect: 201,
    key,
    body: {},
  });
  const v = `${a}/versions/${str(v3.body, 'versionId')}`;
  await call({ operation: 'getAudienceVersion', method: 'GET', path: v, expect: 200 });
  await call({
    operation: 'cancelAudienceVersion',
    method: 'POST',
    path: `${v}/cancel`,
    expect: 200,
    body: {},
  });

  await rec.send({
    operation: 'createAudienceMessage',
    method: 'POST',
    path: `${a}/messages`,
    expect: 201,
    key,
    body: { role: 'user', content: 'Focus the page on freight forwarders.' },
  });
  // The canonical message (the example) is the one with changes: it is the one that restores.
  const answer = await call({
    operation: 'createAudienceMessage',
    method: 'POST',
    path: `${a}/messages`,
    expect: 201,
    body: {
      role: 'assistant',
      content: 'I updated the context.',
      changes: [
        {
          field: 'supplementaryContext',
          newValue: 'Freight forwarders evaluating Acme.',
          status: 'applied',
        },
      ],
    },
  });
  const m = `${a}/messages/${str(answer, 'messageId')}`;
  await call({ operation: 'getAudienceMessages', method: 'GET', path: `${a}/messages`, expect: 200 });
  await call({
    operation: 'restoreAudienceMessage',
    method: 'POST',
    path: `${m}/restore`,
    expect: 200,
    body: {},
  });
  await call({
    operation: 'publishAudienceMessage',
    method: 'POST',
    path: `${m}/publish`,
    expect: 200,
    body: {},
  });

  const session = await call({
    operation: 'createAudienceSession',
    method: 'POST',
    path: '/v0/audience_sessions',
    expect: 201,
    body: { audienceId: str(audience, 'audienceId') },
  });
  const s = `/v0/audience_sessions/${str(session, 'audienceSessionId')}/interactions`;
  await call({
    operation: 'createAudienceSessionInteraction',
    method: 'POST',
    path: s,
    expect: 201,
    body: { componentId: 'hero-cta', label: 'Book a demo' },
  });
  await call({ operation: 'getAudienceSessionInteractions', method: 'GET', path: s, expect: 200 });

  await call({ operation: 'archiveAudience', method: 'POST', path: `${a}/archive`, expect: 200, body: {} });
  await call({ operation: 'restoreAudience', method: 'POST', path: `${a}/restore`, expect: 200, body: {} });
}
