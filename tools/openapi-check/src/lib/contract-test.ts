import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const PORTMAN_CLI = join(dirname(require.resolve('@apideck/portman/package.json')), 'bin/portman');

/** The part of Newman's API this check uses (the package ships no types). */
interface Newman {
  run(
    options: { collection: unknown; envVar: Array<{ key: string; value: string }>; reporters: string[] },
    done: (error: Error | null, summary: NewmanSummary) => void,
  ): void;
}
interface NewmanSummary {
  run: {
    executions: Array<{ item: { name: string }; response?: { code: number } }>;
    failures: Array<{ error: { name: string; message: string; test?: string }; source?: { name?: string } }>;
  };
}
const newman = require('newman') as Newman;

type Json = Record<string, unknown>;
type Document = { paths: Record<string, Record<string, { operationId: string }>>; webhooks?: unknown };
interface PostmanItem {
  name: string;
  item?: PostmanItem[];
  request?: { method: string; url: { path?: string[] } };
  event?: unknown[];
}

/**
 * The order the requests run in: each after the ones whose answers hold the ids it needs, and
 * every operation that ends a resource's life (delete, trash, archive) after its last use.
 * `createAudienceVersion` runs twice: the first version is published, the second cancelled.
 */
export const ORDER = [
  'createPage',
  'getPage',
  'listPages',
  'createAudience',
  'getAudience',
  'listAudiences',
  'createAudienceVersion',
  'publishAudienceVersion',
  'createAudienceVersion',
  'getAudienceVersion',
  'cancelAudienceVersion',
  'createAudienceMessage',
  'getAudienceMessages',
  'restoreAudienceMessage',
  'publishAudienceMessage',
  'createAudienceSession',
  'createAudienceSessionInteraction',
  'getAudienceSessionInteractions',
  'archiveAudience',
  'restoreAudience',
  'archivePage',
  'restorePage',
  'deletePage',
  'createPerson',
  'createPersonLog',
  'deletePersonLog',
  'createAccountLog',
  'listAccounts',
  'getAccount',
  'listAccountActivity',
  'deleteAccountLog',
  'createTopic',
  'getTopic',
  'listTopics',
  'updateTopic',
  'createAsset',
  'putAssetContent',
  'putAssetPreview',
  'trashAsset',
  'listTrashedAssets',
  'createWebhookSubscription',
  'listWebhookSubscriptions',
  'getWebhookSubscription',
  'updateWebhookSubscription',
  'rotateWebhookSubscriptionSecret',
  'listWebhookDeliveries',
  'recoverWebhookDeliveries',
  'deleteWebhookSubscription',
];

/**
 * Operations the one pass cannot reach with a documented example: the signed downloads (their
 * link is made for one asset and expires) and a redelivery (it needs a delivery, which the
 * server makes asynchronously after an event).
 */
export const NOT_EXAMPLE_DRIVEN = [
  'downloadAssetContent',
  'downloadAssetPreview',
  'redeliverWebhookDelivery',
];

/**
 * The ids in a request are the document's examples; before each request, every id of a kind an
 * earlier answer gave is replaced by that answer's (ids are made by each server, so no committed
 * example can name a resource of this one). The path, the query and the body are rewritten.
 */
const PRE_REQUEST = `const live = JSON.parse(pm.collectionVariables.get('liveIds') || '{}');
const swap = (text) => String(text).replace(/\\b([a-z]+)_[0-9a-z]{26}\\b/g, (id, prefix) => live[prefix] || id);
pm.request.url.variables.each((v) => { v.value = swap(v.value); });
pm.request.url.query.each((q) => { q.value = swap(q.value); });
if (pm.request.body && pm.request.body.mode === 'raw') pm.request.body.update(swap(pm.request.body.raw));`;

/**
 * After each 201: the ids at the top of the created resource become the live ids of their kind
 * (a list's items are not taken: its first item may be another resource, the default topic say).
 */
const TEST = `const live = JSON.parse(pm.collectionVariables.get('liveIds') || '{}');
let body; try { body = pm.response.json(); } catch (e) { body = undefined; }
if (pm.response.code === 201 && body && typeof body === 'object') {
  for (const [k, v] of Object.entries(body)) {
    const m = /^([a-z]+)_[0-9a-z]{26}$/.exec(typeof v === 'string' ? v : '');
    if (m && k.endsWith('Id')) live[m[1]] = v;
  }
}
pm.collectionVariables.set('liveIds', JSON.stringify(live));`;

/** The request items of a Postman collection, folders flattened. */
function flatten(items: PostmanItem[]): PostmanItem[] {
  return items.flatMap((item) => (item.item ? flatten(item.item) : [item]));
}

/** The operationId of a request item, by its method and path template. */
function operationOf(doc: Document, item: PostmanItem): string | undefined {
  const path = `/${(item.request?.url.path ?? []).map((s) => s.replace(/^:(.+)$/, '{$1}')).join('/')}`;
  return doc.paths[path]?.[(item.request?.method ?? '').toLowerCase()]?.operationId;
}

/** What the contract test found: the requests run and every failed assertion. */
export interface ContractTestResult {
  requests: Array<{ operation: string; status: number | undefined }>;
  failures: string[];
  newmanMs: number;
}

/** A Postman collection made from the document, ready to run against a server. */
export interface ContractTest {
  portmanMs: number;
  run(baseUrl: string, apiKey: string): Promise<ContractTestResult>;
}

/**
 * Portman turns `document` (less the operations above) into a Postman collection whose requests
 * are the document's examples and whose tests are the document's contract (2xx status, content
 * type, JSON body, schema, declared headers); `run` has Newman run it, in {@link ORDER}, against
 * `baseUrl` with `apiKey`.
 */
export async function prepareContractTest(document: string, dir: string): Promise<ContractTest> {
  const doc = JSON.parse(await readFile(document, 'utf8')) as Document;
  const { webhooks: _webhooks, ...rest } = doc;
  const paths = Object.fromEntries(
    Object.entries(doc.paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).filter(([, op]) => !NOT_EXAMPLE_DRIVEN.includes(op.operationId)),
      ),
    ]),
  );
  const trimmed = join(dir, 'openapi-example-driven.json');
  await writeFile(
    trimmed,
    JSON.stringify({
      ...rest,
      paths: Object.fromEntries(Object.entries(paths).filter(([, item]) => Object.keys(item).length > 0)),
    }),
  );
  const config = join(dir, 'portman-config.json');
  await writeFile(
    config,
    JSON.stringify({
      version: 1.0,
      tests: {
        contractTests: [
          {
            openApiOperation: '*::/*',
            statusSuccess: { enabled: true },
            contentType: { enabled: true },
            jsonBody: { enabled: true },
            schemaValidation: { enabled: true },
            headersPresent: { enabled: true },
          },
        ],
      },
    }),
  );
  const output = join(dir, 'collection.json');
  const started = performance.now();
  await run(
    process.execPath,
    [
      PORTMAN_CLI,
      '--local',
      trimmed,
      '--output',
      output,
      '--portmanConfigFile',
      config,
      '--syncPostman',
      'false',
      '--runNewman',
      'false',
      '--includeTests',
      'true',
    ],
    { cwd: dir, env: { ...process.env, NO_COLOR: '1' } },
  );
  const portmanMs = Math.round(performance.now() - started);
  const collection = JSON.parse(await readFile(output, 'utf8')) as Json & { item: PostmanItem[] };
  const byOperation = new Map(flatten(collection.item).map((item) => [operationOf(doc, item), item]));
  const missing = ORDER.filter((name) => !byOperation.has(name));
  if (missing.length > 0) throw new Error(`Portman made no request for ${missing.join(', ')}`);
  // A fresh copy per place in the order (an operation may run twice), without Postman's item id.
  collection.item = ORDER.map((name) => {
    const { id: _id, ...item } = JSON.parse(JSON.stringify(byOperation.get(name))) as PostmanItem & {
      id?: string;
    };
    return { ...item, name };
  });
  collection.event = [
    { listen: 'prerequest', script: { type: 'text/javascript', exec: PRE_REQUEST.split('\n') } },
    { listen: 'test', script: { type: 'text/javascript', exec: TEST.split('\n') } },
  ];
  collection.auth = {
    type: 'apikey',
    apikey: [
      { key: 'key', value: 'x-api-key' },
      { key: 'value', value: '{{apiKey}}' },
      { key: 'in', value: 'header' },
    ],
  };
  return { portmanMs, run: (baseUrl, apiKey) => runNewman(collection, baseUrl, apiKey) };
}

/** Newman runs the collection against `baseUrl` with `apiKey`. */
async function runNewman(collection: unknown, baseUrl: string, apiKey: string): Promise<ContractTestResult> {
  const started = performance.now();
  const summary = await new Promise<NewmanSummary>((resolve, reject) =>
    newman.run(
      {
        collection,
        envVar: [
          { key: 'baseUrl', value: baseUrl },
          { key: 'apiKey', value: apiKey },
        ],
        reporters: [],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    ),
  );
  return {
    requests: summary.run.executions.map((e) => ({ operation: e.item.name, status: e.response?.code })),
    failures: summary.run.failures.map(
      (f) => `${f.source?.name ?? '?'}: ${f.error.test ?? f.error.name}: ${f.error.message}`,
    ),
    newmanMs: Math.round(performance.now() - started),
  };
}
