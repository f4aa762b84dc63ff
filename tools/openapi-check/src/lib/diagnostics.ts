import type { ApiServer, Running } from './processes.js';
import type { Upstream } from './upstream.js';

/**
 * The server's log lines at warn level and above (pino's JSON lines), then Prism's error lines: a
 * request Prism could not forward (the server unreachable, the connection reset) is Prism's 500.
 */
export function serverProblems(server: Running, proxy: Running): string {
  const serverLines = server
    .output()
    .split('\n')
    .filter((line) => /"level":(40|50|60)/.test(line));
  const prismLines = proxy
    .output()
    .split('\n')
    .filter((line) => /\berror\b|✖/i.test(line) && !/\/hooks\//.test(line));
  return [...serverLines, '[prism]', ...prismLines].join('\n');
}

/**
 * Rejects after `ms`, naming the event types no delivery of which has arrived, with what the
 * server's delivery log says of each subscription's attempts (read directly, not through Prism).
 */
export async function missingAfter(
  ms: number,
  subs: string[],
  {
    server,
    proxy,
    upstream,
    eventTypes,
  }: { server: ApiServer; proxy: Running; upstream: Upstream; eventTypes: string[] },
): Promise<never> {
  await new Promise((resolve) => setTimeout(resolve, ms).unref());
  const missing = eventTypes.filter((type) => !upstream.received.includes(type));
  const logs = await Promise.all(
    subs.map(async (sub) => {
      const res = await fetch(`${server.url}/v0/webhook_subscriptions/${sub}/deliveries`, {
        headers: { 'x-api-key': server.keys.owner },
      });
      return `${sub}: ${res.status} ${await res.text()}`;
    }),
  );
  throw new Error(
    `no delivery after ${ms} ms of: ${missing.join(', ')}; deliveries:\n${logs.join('\n')}\nserver log:\n${serverProblems(server, proxy)}`,
  );
}
