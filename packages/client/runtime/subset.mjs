// The client's end-to-end subset, run unchanged on Node (bundled), Bun, Deno, workerd and headless
// Chromium against a real server (runtime.test.ts). It imports the package by name, so each
// runtime resolves its own export condition; it returns what a user would check, and the test
// compares it.
import {
  CLIENT_VERSION,
  ConnectionError,
  CustomerApiError,
  createClient,
  getEtag,
  NotFoundError,
  PreconditionFailedError,
  verifyWebhookAsync,
} from '@customer-api/client';
import { contract } from '@customer-api/contract';

/** Runs the subset against `baseUrl` with `apiKey`; `refusedUrl` is an address nothing listens on. */
export async function runSubset({ baseUrl, apiKey, refusedUrl }) {
  const logs = [];
  const client = createClient({
    baseUrl,
    apiKey,
    maxRetries: 0,
    // The contract itself, not `true`: the form every entry point accepts, the browser's included.
    validateResponses: contract,
    logLevel: 'debug',
    logger: { debug: (message, fields) => logs.push({ message, fields }), warn: () => {} },
  });
  const body = {
    source: 'runtime-check',
    domain: 'runtime.example',
    payload: { n: 1 },
    idempotencyKey: crypto.randomUUID(),
  };
  const created = await client.withResponse.createAccountLog({ body });
  const replayed = await client.withResponse.createAccountLog({ body });
  const pages = [];
  for await (const page of client.iterate('listPages', { query: { limit: 2 } })) pages.push(page.pageId);
  const { totalCount } = await client.listPages({ query: { limit: 1 } });
  const missing = await client
    .getAccount({ params: { account_id: `account_${'9'.repeat(26)}` } })
    .catch((error) => error);
  const refused = await createClient({ baseUrl: refusedUrl, apiKey, maxRetries: 0 })
    .listPages()
    .catch((error) => error);
  const conditional = await conditionalCheck({ baseUrl, apiKey }, pages[0]);
  await client.close();
  return {
    version: CLIENT_VERSION,
    statuses: [created.status, replayed.status],
    sameLog: created.data.accountLogId === replayed.data.accountLogId,
    rateLimitHeader: created.headers.get('ratelimit-limit') ?? created.headers.get('x-ratelimit-limit'),
    requestId: typeof created.requestId === 'string' && created.requestId.length > 0,
    pagesIterated: pages.length,
    pagesTotal: totalCount,
    notFound: {
      isNotFound: missing instanceof NotFoundError,
      isApiError: missing instanceof CustomerApiError,
      code: missing.code,
    },
    refused: {
      isConnection: refused instanceof ConnectionError,
      isApiError: refused instanceof CustomerApiError,
      code: refused.code,
      status: refused.status,
    },
    keyLogged: JSON.stringify(logs).includes(apiKey),
    debugLines: logs.length > 0,
    webhook: await webhookCheck(),
    conditional,
  };
}

/**
 * ETags: a cached read revalidated by a 304 that costs no rate-limit unit, a read naming its own
 * tag, and a write with a stale `If-Match` refused without changing anything.
 */
async function conditionalCheck({ baseUrl, apiKey }, pageId) {
  const client = createClient({ baseUrl, apiKey, maxRetries: 0, etagCache: true });
  const remaining = (response) =>
    Number(response.headers.get('ratelimit-remaining') ?? response.headers.get('x-ratelimit-remaining'));
  const page = { params: { page_id: pageId } };
  const first = await client.withResponse.getPage(page);
  const second = await client.withResponse.getPage(page);
  const asked = await client.getPage(page, { ifNoneMatch: first.etag });
  const topic = await client.createTopic({ body: { title: 'runtime-check' } });
  const params = { topic_id: topic.topicId };
  const renamed = await client.updateTopic(
    { params, body: { title: 'renamed' } },
    { ifMatch: getEtag(topic) },
  );
  const stale = await client
    .updateTopic({ params, body: { title: 'lost update' } }, { ifMatch: getEtag(topic) })
    .catch((error) => error);
  const after = await client.getTopic({ params });
  await client.close();
  return {
    strongTag: /^"[A-Za-z0-9_-]{22}"$/.test(first.etag ?? ''),
    revalidated: {
      status: second.status,
      fromCache: second.fromCache,
      sameTag: second.etag === first.etag,
      sameBody: JSON.stringify(second.data) === JSON.stringify(first.data),
      uncounted: remaining(second) >= remaining(first),
    },
    notModified: asked === undefined,
    newTagAfterWrite: getEtag(renamed) !== undefined && getEtag(renamed) !== getEtag(topic),
    stale: {
      isPreconditionFailed: stale instanceof PreconditionFailedError,
      code: stale.code,
      status: stale.status,
    },
    titleKept: after.title,
  };
}

/** Signs a delivery the Standard Webhooks way with Web Crypto, then verifies it and a tampered copy. */
async function webhookCheck() {
  const secretBytes = crypto.getRandomValues(new Uint8Array(24));
  const secret = `whsec_${btoa(String.fromCharCode(...secretBytes))}`;
  const delivery = {
    timestamp: '2026-01-31T11:59:59.000Z',
    eventId: 'evt_01jd4x3k5n8q2r6t9v0w1y2z3a',
    payload: {
      type: 'page.version.created',
      pageId: 'page_1',
      audienceId: 'audience_1',
      versionId: 'version_1',
      status: 'draft',
      createdAt: '2026-01-31T11:59:59.000Z',
    },
  };
  const rawBody = JSON.stringify(delivery);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const key = await crypto.subtle.importKey('raw', secretBytes, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const mac = new Uint8Array(
    await crypto.subtle.sign(
      'HMAC',
      key,
      new TextEncoder().encode(`${delivery.eventId}.${timestamp}.${rawBody}`),
    ),
  );
  const headers = {
    'webhook-id': delivery.eventId,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${btoa(String.fromCharCode(...mac))}`,
  };
  const verified = await verifyWebhookAsync({ secret, rawBody, headers }).then(
    (value) => value.eventId,
    (error) => `rejected: ${error.reason ?? error.message}`,
  );
  const tampered = await verifyWebhookAsync({
    secret,
    rawBody: rawBody.replace('page_1', 'page_2'),
    headers,
  }).then(
    () => 'accepted',
    (error) => error.reason,
  );
  return { verified, tampered };
}
