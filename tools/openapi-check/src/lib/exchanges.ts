/** One request sent through the validating proxy and what came back. */
export interface Exchange {
  operation: string;
  expected: number;
  status: number;
  /** Prism's findings: its `sl-violations` header, or its own error answer in place of the server's. */
  violations: string[];
  /** The start of the answer's body, kept when the status is not the expected one. */
  answer?: string;
}

/** A request of the traffic: an operation of the document and the status the server must answer. */
export interface Call {
  operation: string;
  method: string;
  path: string;
  expect: number;
  key?: string | undefined;
  body?: unknown;
  /** A raw body (asset uploads) sent as is. */
  raw?: Uint8Array | undefined;
  headers?: Record<string, string> | undefined;
}

/**
 * How long one exchange may take: far above a loaded machine's seconds, far below the test's
 * timeout, so a request that hangs fails naming itself instead of timing the whole test out.
 */
const ANSWER_TIMEOUT_MS = 90_000;

/** How much of an unexpected answer's body is kept for the failure message. */
const ANSWER_KEPT_CHARS = 600;

/** Sends calls through the proxy and keeps every exchange with its violations. */
export class Recorder {
  readonly exchanges: Exchange[] = [];
  /** What each call was answered: its status and JSON body (the examples are taken from these). */
  readonly answers = new Map<Call, { status: number; body: unknown }>();

  constructor(private readonly base: string) {}

  /** Sends one call; returns the parsed JSON body (or undefined) and the response headers. */
  async send(call: Call): Promise<{ body: unknown; headers: Headers }> {
    const headers: Record<string, string> = { ...call.headers };
    if (call.key !== undefined) headers['x-api-key'] = call.key;
    let body: string | Uint8Array | undefined;
    if (call.raw) body = call.raw;
    else if (call.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.body);
    }
    const started = performance.now();
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.base + call.path, {
        method: call.method,
        headers,
        body,
        signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
      });
      text = await res.text();
    } catch (error) {
      const waited = Math.round(performance.now() - started);
      throw new Error(`${call.operation} ${call.method} ${call.path}: no whole answer after ${waited} ms`, {
        cause: error,
      });
    }
    const json =
      (res.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : undefined;
    const violations: string[] = [];
    const header = res.headers.get('sl-violations');
    if (header) violations.push(header);
    const type = (json as { type?: unknown } | undefined)?.type;
    if (typeof type === 'string' && type.startsWith('https://stoplight.io/prism/')) violations.push(text);
    const exchange: Exchange = {
      operation: call.operation,
      expected: call.expect,
      status: res.status,
      violations,
    };
    // Whose answer an unexpected status is (the server's error object, or Prism's own when it could
    // not reach the server) is in the body.
    if (res.status !== call.expect) exchange.answer = text.slice(0, ANSWER_KEPT_CHARS);
    this.exchanges.push(exchange);
    this.answers.set(call, { status: res.status, body: json });
    return { body: json, headers: res.headers };
  }

  /** Exchanges that failed: a violation, or another status than the call expected. */
  failures(): Exchange[] {
    return this.exchanges.filter((e) => e.violations.length > 0 || e.status !== e.expected);
  }

  /** Statuses validated per operation: `{ createPage: [201, 400, …] }`. */
  coverage(): Map<string, Set<number>> {
    const covered = new Map<string, Set<number>>();
    for (const e of this.exchanges) {
      if (e.violations.length > 0 || e.status !== e.expected) continue;
      const statuses = covered.get(e.operation) ?? new Set<number>();
      statuses.add(e.status);
      covered.set(e.operation, statuses);
    }
    return covered;
  }
}
