import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ContractTest, prepareContractTest } from './contract-test.js';
import type { ExampleDocument } from './examples-file.js';
import { generateAndCompile } from './generated-client.js';
import { generateAndCompileFetch } from './openapi-fetch-client.js';
import { type ApiServer, freePort, type Running, startPrism, startServer } from './processes.js';
import { RATE_LIMIT, RATE_LIMIT_WINDOW_MS } from './rate-window.js';
import { ASSET_MAX_BYTES } from './traffic-errors.js';
import { startUpstream, type Upstream } from './upstream.js';

/** What the check runs against: the real server, Prism in front of it, the receiver, the clients. */
export interface Check {
  dir: string;
  server: ApiServer;
  proxy: Running;
  upstream: Upstream;
  generated: ReturnType<typeof generateAndCompile>;
  fetchClient: ReturnType<typeof generateAndCompileFetch>;
  contractTest: Promise<ContractTest>;
}

/**
 * Starts the server, Prism (validating the document, its webhooks as paths `/hooks/<type>`) and
 * the webhook receiver, while the clients are generated and compiled. `check` is filled as each
 * part starts, so {@link stopCheck} stops what started even when a later part fails.
 */
export async function startCheck(check: Check, document: string, committed: ExampleDocument): Promise<void> {
  const started = performance.now();
  check.dir = await mkdtemp(join(tmpdir(), 'openapi-check-'));
  const { dir } = check;
  // The client is generated and compiled while the server and the proxy start.
  check.generated = generateAndCompile(document, join(dir, 'generated'));
  check.fetchClient = generateAndCompileFetch(document, join(dir, 'openapi-fetch'));
  check.contractTest = prepareContractTest(document, dir);
  // Prism validates paths: the webhooks are added as paths /hooks/<type>, each its webhook's
  // operation unchanged (headers, body, response); the API's paths stay as committed.
  const withHooks = join(dir, 'openapi-with-hooks.json');
  const hooks = Object.entries(committed.webhooks).map(([type, item]) => [`/hooks/${type}`, item]);
  await writeFile(
    withHooks,
    JSON.stringify({ ...committed, paths: { ...committed.paths, ...Object.fromEntries(hooks) } }),
  );
  const [serverPort, proxyPort] = [await freePort(), await freePort()];
  check.upstream = await startUpstream(`http://127.0.0.1:${serverPort}`);
  const env = {
    RATE_LIMIT_MAX: String(RATE_LIMIT),
    RATE_LIMIT_WINDOW_MS: String(RATE_LIMIT_WINDOW_MS),
    ASSET_MAX_BYTES: String(ASSET_MAX_BYTES),
    WEBHOOKS_ALLOW_INSECURE: '1',
    // A delivery that fails on a loaded machine (Prism slow to answer) is tried again within
    // seconds, not after the production schedule's 5 minutes, which outlast the test.
    WEBHOOKS_RETRY_SCHEDULE: '1,1,2,2,5,5,10',
    WEBHOOKS_TIMEOUT_MS: '30000',
  };
  const ready: string[] = [];
  const timed = async <T>(name: string, work: Promise<T>) => {
    const value = await work;
    ready.push(`${name} ${Math.round(performance.now() - started)} ms`);
    return value;
  };
  [check.server, check.proxy] = await Promise.all([
    timed(
      'server and keys',
      startServer({ port: serverPort, baseUrl: `http://127.0.0.1:${proxyPort}`, env }),
    ),
    timed('prism', startPrism(withHooks, check.upstream.url, proxyPort)),
    // A failed generation is the client test's failure, not the setup's.
    timed(
      'generated client',
      check.generated.catch(() => undefined),
    ),
    timed(
      'openapi-typescript types',
      check.fetchClient.catch(() => undefined),
    ),
    timed(
      'portman collection',
      check.contractTest.catch(() => undefined),
    ),
  ]);
  console.info(`[openapi-check] ready: ${ready.join(', ')}`);
}

/** Stops whatever {@link startCheck} started and removes its directory. */
export async function stopCheck({ server, proxy, upstream, dir }: Partial<Check>): Promise<void> {
  await Promise.all([server?.stop(), proxy?.stop(), upstream?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
}
