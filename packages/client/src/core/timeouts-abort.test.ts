import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../client.js';
import { apiError } from '../test/fake-server.js';
import { waits } from '../test/recorded-waits.js';
import { FAST, hang, ok, type Step, useScriptedServer } from '../test/scripted-server.js';

// The waits between attempts are recorded instead of slept; waits of 10 s or more are really
// slept, to be ended by an abort.
vi.mock('./retry.js', async (importOriginal) =>
  (await import('../test/recorded-waits.js')).recordingWaits(await importOriginal(), 10_000),
);
beforeEach(() => {
  waits.length = 0;
});

const { scripted, start } = useScriptedServer();

describe('timeouts and abort', () => {
  it('times out a hanging attempt and retries it', async () => {
    // A timeout roomy enough for the answering attempt on a loaded machine.
    const { client, requests } = await scripted([hang, ok], { timeoutMs: 1000 });
    const result = await client.withResponse.getPage({ params: { page_id: 'p' } });
    expect(result.attempts).toBe(2);
    // The first attempt was never answered: only the timeout could have ended it.
    expect(requests).toHaveLength(2);
  });

  it('rejects with TimeoutError when every attempt hangs, including a stalled body', async () => {
    const stall: Step = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"pageId":');
    };
    const { client, requests } = await scripted([hang, stall], { timeoutMs: 300, maxRetries: 1 });
    const error = await client.getPage({ params: { page_id: 'p' } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'TimeoutError', timeoutMs: 300 });
    expect(requests).toHaveLength(2);
  });

  it('aborts an in-flight call with the standard AbortError and does not retry', async () => {
    const controller = new AbortController();
    // Aborted once the server holds the request (an event, not a guess at how long sending takes).
    const { client, requests } = await scripted([() => controller.abort()]);
    const error = await client
      .getPage({ params: { page_id: 'p' } }, { signal: controller.signal })
      .catch((e) => e);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(requests).toHaveLength(1);
  });

  it('aborts during the wait before a retry, and passes a custom reason through', async () => {
    const limited: Step = (res) => apiError(res, 'RATE_LIMITED', { headers: { 'retry-after': '30' } });
    const server = await start((_req, res) => limited(res, _req));
    const controller = new AbortController();
    const reason = new Error('shutting down');
    // Aborted as soon as the 429 has reached the client, which then waits 30 s before retrying.
    const client = createClient({
      baseUrl: server.url,
      apiKey: 'k',
      backoff: FAST,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        setImmediate(() => controller.abort(reason));
        return response;
      },
    });
    await expect(client.getPage({ params: { page_id: 'p' } }, { signal: controller.signal })).rejects.toBe(
      reason,
    );
    expect(server.requests).toHaveLength(1);
    // The 30 s wait had begun (really slept, see the top): the abort ended it, not its end.
    expect(waits).toEqual([30_000]);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const { client, requests } = await scripted([ok]);
    await expect(
      client.getPage({ params: { page_id: 'p' } }, { signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(requests).toHaveLength(0);
  });
});
