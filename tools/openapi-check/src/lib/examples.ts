import type { Call, Recorder } from './exchanges.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Examples of one operation, as packages/contract/src/openapi-examples.ts keeps them. */
export interface OperationExamples {
  parameters?: Record<string, string | number | boolean>;
  request?: Json;
  responses: Record<string, Json>;
}

/** Every example of the document: per operation, and a delivery body per webhook event type. */
export interface Recording {
  operations: Record<string, OperationExamples>;
  webhooks: Record<string, Json>;
}

/** An operation of the document, as far as the examples need it. */
interface DocOperation {
  operationId: string;
  parameters?: Array<{ name?: string; in?: string; schema?: JsonObject }>;
}
type Doc = { paths: Record<string, Record<string, DocOperation>> };

/** Query parameters no exchange sends, with a value that fits their schema and the recorded data. */
const UNSENT_QUERY: Record<string, string | number | boolean> = {
  // A link's value: opaque, signed with the server's own secret (see the recorded nextCursor).
  cursor: 'eyJ2IjoxLCJrIjoiMjAyNi0xMS0yNFQwOTowMDowMC4wMDBaIn0',
  limit: 20,
  query: 'Logo',
  assetType: 'logo',
  includeEmptyOnly: false,
  includePersonActivity: true,
  includeDeleted: false,
};

/** The operation's path template as a pattern capturing each `{param}`. */
function templateOf(doc: Doc, operationId: string): { path: string; names: string[] } | undefined {
  for (const [path, item] of Object.entries(doc.paths)) {
    if (Object.values(item).some((op) => op.operationId === operationId)) {
      return { path, names: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string) };
    }
  }
  return undefined;
}

/** Path and query values of a request path, by the names of the operation's parameters. */
function parametersOf(doc: Doc, operationId: string, requestPath: string) {
  const template = templateOf(doc, operationId);
  const out: Record<string, string | number | boolean> = {};
  if (!template) return out;
  const [path = '', query = ''] = requestPath.split('?');
  const pattern = new RegExp(`^${template.path.replace(/\{[^}]+\}/g, '([^/]+)')}$`);
  const values = pattern.exec(path)?.slice(1) ?? [];
  template.names.forEach((name, i) => {
    out[name] = decodeURIComponent(values[i] ?? '');
  });
  for (const [name, value] of new URLSearchParams(query))
    out[name] = /^\d+$/.test(value) ? Number(value) : value;
  const op = Object.values(doc.paths[template.path] ?? {}).find((o) => o.operationId === operationId);
  for (const param of op?.parameters ?? []) {
    const fallback = param.name === undefined ? undefined : UNSENT_QUERY[param.name];
    if (param.in === 'query' && param.name && !(param.name in out) && fallback !== undefined)
      out[param.name] = fallback;
  }
  return out;
}

/** A page's items cut to the first: one item shows the shape, the rest only lengthens the document. */
function cutLists(value: Json): Json {
  if (Array.isArray(value)) return value.map(cutLists);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key,
      key === 'items' && Array.isArray(v) ? v.slice(0, 1).map(cutLists) : cutLists(v),
    ]),
  );
}

/**
 * The examples of the recorded traffic: for each operation, the parameters and body of its
 * canonical (successful) call, and the first answer of each 2xx status it got; the webhooks'
 * first delivery bodies. The signed downloads take their parameters from the last upload's links.
 */
export function recordExamples(
  doc: Doc,
  rec: Recorder,
  canonical: Map<string, Call>,
  webhookBodies: Map<string, unknown>,
): Recording {
  const operations: Record<string, OperationExamples> = {};
  const calls = [...rec.answers.entries()];
  for (const [operationId, call] of canonical) {
    const examples: OperationExamples = { responses: {} };
    const parameters = parametersOf(doc, operationId, call.path);
    if (Object.keys(parameters).length > 0) examples.parameters = parameters;
    if (call.body !== undefined) examples.request = call.body as Json;
    for (const [sent, answer] of calls) {
      const status = String(answer.status);
      if (sent.operation !== operationId || !status.startsWith('2') || answer.body === undefined) continue;
      // The canonical call's own answer wins over another call's of the same status.
      if (!(status in examples.responses) || sent === call)
        examples.responses[status] = cutLists(answer.body as Json);
    }
    const { responses, ...rest } = examples;
    operations[operationId] = { ...rest, responses };
  }
  const asset = operations.putAssetPreview?.responses['200'] as JsonObject | undefined;
  for (const [operationId, field] of [
    ['downloadAssetContent', 'downloadUrl'],
    ['downloadAssetPreview', 'previewDownloadUrl'],
  ] as const) {
    const url = asset?.[field];
    if (typeof url === 'string')
      operations[operationId] = {
        parameters: parametersOf(doc, operationId, new URL(url).pathname + new URL(url).search),
        responses: {},
      };
  }
  const webhooks = Object.fromEntries([...webhookBodies].map(([type, body]) => [type, body as Json]));
  return normalise({ operations: sortKeys(operations), webhooks: sortKeys(webhooks) });
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

const ID =
  /\b(page|audience|version|conversation|message|change|person|personlog|accountlog|account|activity|topic|topicentry|asset|session|whsub|evt|whdel|tenant|req)_[0-9a-z]{26}\b/g;
const TIMESTAMP = /\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\b/g;
const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
/** The first recorded instant becomes this one; later ones follow a second apart, in order of appearance. */
const FIRST_INSTANT = Date.parse('2026-11-24T09:00:00.000Z');

/**
 * Makes a recording independent of the run: ids and instants are renumbered in order of first
 * appearance (the same id or instant keeps one value throughout), and what a run signs or
 * derives from its clock (signing secrets, link signatures and expiries, cursors, the server's
 * port, `Date.now()` suffixes, a delivery's duration) gets a fixed value of the same form.
 */
export function normalise(recording: Recording): Recording {
  let text = JSON.stringify(recording);
  const ids = new Map<string, string>();
  text = text.replace(ID, (id, prefix: string) => {
    let next = ids.get(id);
    if (!next) {
      let n = ids.size + 1;
      let tail = '';
      for (; n > 0; n = Math.floor(n / 32)) tail = CROCKFORD[n % 32] + tail;
      next = `${prefix}_01kmw4p9e0${tail.padStart(16, '0')}`;
      ids.set(id, next);
    }
    return next;
  });
  const instants = new Map<string, string>();
  text = text.replace(TIMESTAMP, (instant) => {
    let next = instants.get(instant);
    if (!next) {
      next = new Date(FIRST_INSTANT + instants.size * 1000).toISOString();
      instants.set(instant, next);
    }
    return next;
  });
  text = text
    .replace(/whsec_[A-Za-z0-9+/=]+/g, 'whsec_ZXhhbXBsZS1zaWduaW5nLXNlY3JldC0zMmJ5dGVz')
    .replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://127.0.0.1:3000')
    .replace(/expires=\d+/g, 'expires=1795000000')
    .replace(/signature=[A-Za-z0-9_-]+/g, 'signature=Yp3xQ0n7Jm2Lk8Vd4Rt6Wb1Zs9Hc5Fg0Ae2Ui7Oo3Pq')
    .replace(/"(cursor|nextCursor)":"[^"]+"/g, `"$1":"${UNSENT_QUERY.cursor}"`)
    .replace(/\b1[6-9]\d{11}\b/g, '1764000000000')
    .replace(/"durationMs":\d+/g, '"durationMs":120');
  const parsed = JSON.parse(text) as Recording;
  for (const [name, value] of [
    ['expires', '1795000000'],
    ['signature', 'Yp3xQ0n7Jm2Lk8Vd4Rt6Wb1Zs9Hc5Fg0Ae2Ui7Oo3Pq'],
  ] as const) {
    for (const op of Object.values(parsed.operations))
      if (op.parameters && name in op.parameters) op.parameters[name] = value;
  }
  return parsed;
}

/** A value's shape: its keys and JSON types, all the way down (an array by its first item). */
function shape(value: unknown, path: string, out: Map<string, string>): void {
  if (value === null || value === undefined) out.set(path, 'null');
  else if (Array.isArray(value)) {
    out.set(path, value.length > 0 ? 'array' : 'empty');
    if (value.length > 0) shape(value[0], `${path}[]`, out);
  } else if (typeof value === 'object') {
    out.set(path, 'object');
    for (const [key, v] of Object.entries(value)) shape(v, `${path}.${key}`, out);
  } else out.set(path, typeof value);
}

/** Types that match any other: whether a field is set or a list has items can depend on timing. */
const ANY = new Set(['null', 'empty']);
const CONTAINER = new Set(['object', 'array']);

/**
 * Where a committed example no longer looks like the live exchange: a field one has and the
 * other lacks, or a field of another JSON type. A null or an empty list matches any shape (a
 * delivery's last error, say, is set or not depending on timing).
 */
export function shapeDifferences(committed: unknown, live: unknown): string[] {
  const [a, b] = [new Map<string, string>(), new Map<string, string>()];
  shape(committed, '', a);
  shape(live, '', b);
  const differences: string[] = [];
  const parentOf = (path: string) => path.replace(/(\.[^.[\]]+|\[\])$/, '');
  for (const [path, type] of a) {
    const other = b.get(path);
    if (other === undefined) {
      if (CONTAINER.has(b.get(parentOf(path)) ?? '')) differences.push(`${path}: committed only`);
    } else if (other !== type && !ANY.has(type) && !ANY.has(other))
      differences.push(`${path || '.'}: ${type} committed, ${other} live`);
  }
  for (const path of b.keys())
    if (!a.has(path) && CONTAINER.has(a.get(parentOf(path)) ?? '')) differences.push(`${path}: live only`);
  return differences;
}
