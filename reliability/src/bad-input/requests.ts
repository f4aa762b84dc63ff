import { parse as parseQuery } from 'node:querystring';
import { contract, type OperationName } from '@customer-api/contract';
import fc from 'fast-check';
import type { z } from 'zod';
import { jsonSchemaOf, SchemaWalker } from './schema-arbitraries.js';
import { weirdValue } from './values.js';

/** A generated request and what the server must answer. */
export interface FuzzRequest {
  operation: OperationName;
  category: string;
  method: string;
  url: string;
  headers: Record<string, string | string[]>;
  payload: string | undefined;
  /** `validation`: exactly 400 VALIDATION_ERROR; `unauthorized`: 401; `any`: any non-5xx answer. */
  expect: 'validation' | 'unauthorized' | 'any';
  /** A path parameter the router itself may refuse (empty or over its length limit): 404 allowed. */
  routerMayRefuse: boolean;
}

/** What a request is built from: a tenant's key, its resource ids and real cursors. */
export interface FuzzContext {
  apiKey: string;
  ids: Record<string, string>;
  /** Valid cursors per list operation (this tenant, default filters). */
  cursors: Partial<Record<OperationName, string>>;
  /** Cursors the operation must refuse: other tenants', other operations', altered ones. */
  foreignCursors: string[];
  /** Parent ids no fuzzed request deletes (forged cursors are tried under them). */
  stableIds: Record<string, string>;
}

type Route = (typeof contract)[OperationName];

const isZod = (value: unknown): value is z.ZodType =>
  typeof value === 'object' && value !== null && 'safeParse' in value;

/** Fastify's router refuses parameters longer than this (find-my-way `maxParamLength`). */
const ROUTER_PARAM_LIMIT = 100;

function percentEncode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    // Lone surrogates: encode the UTF-8 bytes (U+FFFD), as a client library would.
    return [...Buffer.from(value, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  }
}

/** Path parameters as the server decodes them (lone surrogates become U+FFFD in UTF-8). */
function buildPath(
  route: Route,
  params: Record<string, string>,
): { url: string; decoded: Record<string, string> } {
  const decoded: Record<string, string> = {};
  const url = route.path.replace(/:([a-z_]+)/g, (_m, name: string) => {
    const value = params[name] ?? '';
    decoded[name] = Buffer.from(value, 'utf8').toString('utf8');
    return percentEncode(value);
  });
  return { url, decoded };
}

function encodeQuery(query: Record<string, string | string[]>): { search: string; parsed: unknown } {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    for (const v of Array.isArray(value) ? value : [value]) search.append(key, v);
  }
  const text = search.toString();
  return { search: text ? `?${text}` : '', parsed: { ...parseQuery(text) } };
}

const asString = (value: unknown): string =>
  typeof value === 'string' ? value : (JSON.stringify(value) ?? '');

/** Arbitraries of one operation's inputs: valid parts and defective parts. */
export class OperationFuzzer {
  readonly route: Route;
  readonly pathNames: string[];
  private readonly body?: { schema: z.ZodType; walker: SchemaWalker };
  private readonly query?: { schema: z.ZodType; walker: SchemaWalker };

  constructor(
    readonly name: OperationName,
    private readonly ctx: FuzzContext,
  ) {
    this.route = contract[name];
    this.pathNames = [...this.route.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1] as string);
    const r = this.route as { body?: unknown; query?: unknown };
    if (isZod(r.body)) this.body = { schema: r.body, walker: new SchemaWalker(jsonSchemaOf(r.body)) };
    if (isZod(r.query)) this.query = { schema: r.query, walker: new SchemaWalker(jsonSchemaOf(r.query)) };
  }

  get hasBody(): boolean {
    return this.body !== undefined;
  }

  get hasQuery(): boolean {
    return this.query !== undefined;
  }

  validPath(): fc.Arbitrary<Record<string, string>> {
    const entries = this.pathNames.map(
      (n) => [n, fc.constantFrom(this.ctx.ids[n] ?? `${n}_missing`, `x_${n}_0000`)] as const,
    );
    return fc.record(Object.fromEntries(entries));
  }

  badPath(): fc.Arbitrary<Record<string, string>> {
    if (this.pathNames.length === 0) return this.validPath();
    const bad = fc.oneof(
      fc.constantFrom(
        '',
        ' ',
        'x'.repeat(101),
        'x'.repeat(255),
        'x'.repeat(256),
        'x'.repeat(5000),
        '..',
        '.',
        '%',
        '/',
      ),
      weirdValue.map(asString),
    );
    return fc
      .tuple(this.validPath(), fc.constantFrom(...this.pathNames), bad)
      .map(([p, n, v]) => ({ ...p, [n]: v }));
  }

  validQuery(): fc.Arbitrary<Record<string, string>> {
    if (!this.query) return fc.constant({});
    const cursor = this.ctx.cursors[this.name];
    return (
      this.query.walker.valid(this.query.walker.resolve(jsonSchemaOf(this.query.schema))) as fc.Arbitrary<
        Record<string, unknown>
      >
    ).map((q) => {
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(q)) if (k !== 'cursor') out[k] = String(v);
      if (cursor && 'cursor' in q) out.cursor = cursor;
      return out;
    });
  }

  badQuery(): fc.Arbitrary<Record<string, string | string[]>> {
    if (!this.query) return fc.constant({ unexpected: '1' });
    const root = this.query.walker.resolve(jsonSchemaOf(this.query.schema));
    const keys = Object.keys(root.properties ?? {});
    const badValue = fc.oneof(
      fc.constantFrom(
        '',
        '0',
        '101',
        '-1',
        '1.5',
        '1e2',
        '1e400',
        'abc',
        ' 20',
        '0x10',
        '２０',
        'TRUE',
        'yes',
        'null',
        '[]',
      ),
      fc
        .constantFrom(...keys)
        .chain((k) => this.query?.walker.invalid(root.properties?.[k] ?? {}) ?? weirdValue)
        .map(asString),
      fc.array(fc.constantFrom('1', '2', 'true'), { minLength: 2, maxLength: 3 }),
    );
    return fc.oneof(
      fc.tuple(this.validQuery(), fc.constantFrom(...keys), badValue).map(([q, k, v]) => ({ ...q, [k]: v })),
      fc
        .tuple(
          this.validQuery(),
          fc.constantFrom('unknown', 'limit[]', '__proto__', 'constructor', 'cursor[a]', ''),
          badValue,
        )
        .map(([q, k, v]) => ({ ...q, [k]: v })),
    );
  }

  validBody(): fc.Arbitrary<unknown> {
    if (!this.body) return fc.constant(undefined);
    return this.body.walker.valid(jsonSchemaOf(this.body.schema));
  }

  badBody(): fc.Arbitrary<unknown> {
    if (!this.body) return fc.constant(undefined);
    return this.body.walker.mutatedObject(jsonSchemaOf(this.body.schema));
  }

  /** Builds the request and decides the expected answer with the contract's own schemas. */
  build(
    category: string,
    parts: { path: Record<string, string>; query: Record<string, string | string[]>; body: unknown },
  ): FuzzRequest {
    const { url, decoded } = buildPath(this.route, parts.path);
    const { search, parsed } = encodeQuery(parts.query);
    const route = this.route as { pathParams?: unknown };
    const pathOk = !isZod(route.pathParams) || route.pathParams.safeParse(decoded).success;
    const queryOk = !this.query || this.query.schema.safeParse(parsed).success;
    const payload = this.body
      ? parts.body === undefined
        ? undefined
        : JSON.stringify(parts.body)
      : undefined;
    const sent = payload === undefined ? {} : JSON.parse(payload);
    const bodyOk = !this.body || this.body.schema.safeParse(sent).success;
    const routerMayRefuse = Object.values(decoded).some(
      // Dot segments are resolved away by URL rules before routing.
      (v) => v.length === 0 || v === '.' || v === '..' || percentEncode(v).length > ROUTER_PARAM_LIMIT,
    );
    return {
      operation: this.name,
      category,
      method: this.route.method,
      url: `${url}${search}`,
      headers: {
        'x-api-key': this.ctx.apiKey,
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      payload,
      expect: pathOk && queryOk && bodyOk ? 'any' : 'validation',
      routerMayRefuse,
    };
  }
}
