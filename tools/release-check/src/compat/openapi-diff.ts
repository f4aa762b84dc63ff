import { type Change, ChangeLog, isObject, type Json, type JsonObject } from './changes.js';
import { Resolver } from './resolver.js';
import { SchemaDiff } from './schema-diff.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Operation {
  label: string;
  op: JsonObject;
  pathParameters: Json[];
}

/** Operations by method and path shape (`GET /v0/pages/{}`), so a renamed path parameter still matches. */
function operationsOf(doc: JsonObject): Map<string, Operation> {
  const found = new Map<string, Operation>();
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    const pathParameters = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const label = `${method.toUpperCase()} ${path}`;
      found.set(`${method.toUpperCase()} ${path.replace(/\{[^}]*\}/g, '{}')}`, { label, op, pathParameters });
    }
  }
  return found;
}

const lower = (name: string) => name.toLowerCase();
const membersOf = (value: Json | undefined): JsonObject => (isObject(value) ? value : {});

/**
 * Compares two OpenAPI 3.1 documents as a consumer of the first would meet the second: every
 * operation, parameter, request body, success response (body and headers) and webhook payload
 * (webhooks are received, like responses). Returns each change with whether it breaks that consumer.
 */
export function diffOpenApi(before: JsonObject, after: JsonObject): Change[] {
  const log = new ChangeLog();
  const b = new Resolver(before);
  const a = new Resolver(after);
  const schemas = new SchemaDiff(b, a, log);
  const oldOps = operationsOf(before);
  const newOps = operationsOf(after);
  for (const [key, old] of oldOps) {
    const next = newOps.get(key);
    if (next) compareOperation({ b, a, schemas, log }, old, next);
    else log.add('operation-removed', old.label, String(old.op.operationId ?? ''));
  }
  for (const [key, next] of newOps) if (!oldOps.has(key)) log.add('operation-added', next.label);
  const oldHooks = membersOf(before.webhooks);
  const newHooks = membersOf(after.webhooks);
  for (const [name, hook] of Object.entries(oldHooks)) {
    if (!(name in newHooks)) {
      log.add('webhook-removed', `webhook ${name}`);
      continue;
    }
    const oldBody = b.deref(membersOf(membersOf(hook).post).requestBody);
    const newBody = a.deref(membersOf(membersOf(newHooks[name]).post).requestBody);
    compareContent(schemas, log, oldBody, newBody, `webhook ${name} › payload`, 'response');
  }
  for (const name of Object.keys(newHooks))
    if (!(name in oldHooks)) log.add('webhook-added', `webhook ${name}`);
  return log.changes;
}

interface Context {
  b: Resolver;
  a: Resolver;
  schemas: SchemaDiff;
  log: ChangeLog;
}

function compareOperation(ctx: Context, old: Operation, next: Operation): void {
  const { log } = ctx;
  const at = old.label;
  if (old.op.operationId !== undefined && old.op.operationId !== next.op.operationId) {
    log.add('operation-renamed', at, `${String(old.op.operationId)} → ${String(next.op.operationId)}`);
  }
  if (old.op.deprecated !== true && next.op.deprecated === true) log.add('operation-deprecated', at);
  compareParameters(ctx, old, next);
  const oldBody = ctx.b.deref(old.op.requestBody);
  const newBody = ctx.a.deref(next.op.requestBody);
  if (newBody?.required === true && oldBody?.required !== true) {
    log.add('request-body-required', at, oldBody ? 'was optional' : 'new required body');
  }
  compareContent(ctx.schemas, log, oldBody, newBody, `${at} › request body`, 'request');
  const oldResponses = membersOf(old.op.responses);
  const newResponses = membersOf(next.op.responses);
  for (const [status, response] of Object.entries(oldResponses)) {
    const success = status.startsWith('2');
    const here = `${at} › response ${status}`;
    if (!(status in newResponses)) {
      if (success) log.add('response-removed', here);
      continue;
    }
    const o = ctx.b.deref(response);
    const n = ctx.a.deref(newResponses[status]);
    const newHeaders = new Map(Object.entries(membersOf(n?.headers)).map(([k, v]) => [lower(k), v]));
    for (const [name, header] of Object.entries(membersOf(o?.headers))) {
      const match = newHeaders.get(lower(name));
      if (match === undefined) log.add('response-header-removed', `${here} › header ${name}`);
      else {
        const schemaOf = (r: Resolver, h: Json) => r.deref(h)?.schema;
        ctx.schemas.compare(
          schemaOf(ctx.b, header),
          schemaOf(ctx.a, match),
          `${here} › header ${name}`,
          'response',
        );
      }
    }
    compareContent(ctx.schemas, log, o, n, here, 'response');
  }
  for (const status of Object.keys(newResponses)) {
    if (!(status in oldResponses) && status.startsWith('2'))
      log.add('response-added', `${at} › response ${status}`);
  }
}

function compareParameters(ctx: Context, old: Operation, next: Operation): void {
  const index = (r: Resolver, op: Operation) => {
    const found = new Map<string, JsonObject>();
    for (const raw of [...op.pathParameters, ...(Array.isArray(op.op.parameters) ? op.op.parameters : [])]) {
      const p = r.deref(raw);
      if (!p || typeof p.name !== 'string' || typeof p.in !== 'string') continue;
      found.set(`${p.in} ${p.in === 'header' ? lower(p.name) : p.name}`, p);
    }
    return found;
  };
  const oldParams = index(ctx.b, old);
  const newParams = index(ctx.a, next);
  for (const [key, p] of oldParams) {
    const here = `${old.label} › ${key}`;
    const n = newParams.get(key);
    if (!n) {
      ctx.log.add('parameter-removed', here);
      continue;
    }
    if (p.required !== true && n.required === true) ctx.log.add('parameter-required', here, 'was optional');
    ctx.schemas.compare(p.schema, n.schema, here, 'request');
  }
  for (const [key, n] of newParams) {
    if (oldParams.has(key)) continue;
    const here = `${old.label} › ${key}`;
    if (n.required === true) ctx.log.add('parameter-required', here, 'new required parameter');
    else ctx.log.add('parameter-added', here);
  }
}

function compareContent(
  schemas: SchemaDiff,
  log: ChangeLog,
  old: JsonObject | undefined,
  next: JsonObject | undefined,
  at: string,
  dir: 'request' | 'response',
): void {
  const newContent = membersOf(next?.content);
  for (const [type, media] of Object.entries(membersOf(old?.content))) {
    const match = newContent[type];
    if (match === undefined) {
      log.add(dir === 'request' ? 'request-media-type-removed' : 'response-removed', at, `${type} removed`);
      continue;
    }
    schemas.compare(membersOf(media).schema, membersOf(match).schema, at, dir);
  }
}
