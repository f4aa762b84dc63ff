import type { Pool } from 'undici';
import { call } from './http.js';

/** A page and audience under which versions (each a `page.version.created` event) are made. */
export async function versionTarget(client: Pool, apiKey: string): Promise<string> {
  const page = await call(client, 'POST', '/v0/pages', {
    apiKey,
    body: { name: 'Webhooks', title: 'Webhooks', pageContext: 'x', brandId: 'b', pageType: 'inbound' },
  });
  const pageId = (page.body as { pageId: string }).pageId;
  const audience = await call(client, 'POST', `/v0/pages/${pageId}/audiences`, { apiKey, body: {} });
  return `/v0/pages/${pageId}/audiences/${(audience.body as { audienceId: string }).audienceId}/versions`;
}

/** Subscribes the receiver to every event. */
export async function subscribe(client: Pool, apiKey: string, url: string): Promise<void> {
  const res = await call(client, 'POST', '/v0/webhook_subscriptions', { apiKey, body: { url } });
  if (res.status !== 201) throw new Error(`subscribe: ${res.status} ${res.text}`);
}

/**
 * Creates versions with `connections` workers until `until` resolves; returns the ids of the
 * acknowledged (201) ones: each of their events must reach the receiver at least once.
 */
export async function versionLoad(
  client: Pool,
  apiKey: string,
  path: string,
  options: { connections: number; until: Promise<unknown>; pauseMs?: number },
): Promise<{ acked: string[]; unexpected: string[] }> {
  const acked: string[] = [];
  const unexpected: string[] = [];
  let stopped = false;
  void options.until.then(() => {
    stopped = true;
  });
  const worker = async () => {
    while (!stopped) {
      try {
        const res = await call(client, 'POST', path, { apiKey, body: {} });
        if (res.status === 201) acked.push((res.body as { versionId: string }).versionId);
        else unexpected.push(`${res.status} ${res.text.slice(0, 200)}`);
      } catch {
        if (stopped) return;
      }
      await new Promise((r) => setTimeout(r, options.pauseMs ?? 0));
    }
  };
  await Promise.all(Array.from({ length: options.connections }, worker));
  return { acked, unexpected };
}

/** Waits until every version id was delivered at least once; returns the ids still missing. */
export async function waitDelivered(
  versions: Map<string, number>,
  expected: string[],
  timeoutMs: number,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const missing = expected.filter((id) => !versions.has(id));
    if (missing.length === 0 || Date.now() > deadline) return missing;
    await new Promise((r) => setTimeout(r, 250));
  }
}
