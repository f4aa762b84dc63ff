import type {
  Contract,
  JsonOperationName,
  OperationName,
  PaginatedOperationName,
} from '@customer-api/contract';
import type { z } from 'zod';

/** `{}` spelled out: the type every object with only optional keys is assignable to. */
type Empty = Record<never, never>;

type Prettify<T> = { [K in keyof T]: T[K] };

type Route<N extends OperationName> = Contract[N];

/** The `:name` segments of a route path: `/v0/pages/:page_id/restore` gives `'page_id'`. */
type PathParamNames<P extends string> = P extends `${string}/:${infer Name}/${infer Rest}`
  ? Name | PathParamNames<`/${Rest}`>
  : P extends `${string}/:${infer Name}`
    ? Name
    : never;

type SuccessStatus<N extends OperationName> = Extract<keyof Route<N>['responses'], 200 | 201 | 202 | 204>;

// Inputs and results are inferred with this package's own `zod` and types rather than through
// ts-rest's inference helpers, whose declaration files import `zod` without declaring it (under a
// strict package manager they resolve nothing and silently turn every type into `any`) and fail
// a consumer's full type check (docs/decisions/0219-client-types-and-bundle-without-ts-rest.md).
type PathArgs<R> = R extends { pathParams: infer P extends z.ZodType }
  ? { params: z.input<P> }
  : R extends { path: infer Path extends string }
    ? [PathParamNames<Path>] extends [never]
      ? Empty
      : { params: { [K in PathParamNames<Path>]: string } }
    : Empty;
type QueryArgs<R> = R extends { query: infer Q extends z.ZodType } ? { query: z.input<Q> } : Empty;
/** Routes declared with `c.noBody()` carry a symbol, not a schema, and take no body. */
type BodyArgs<R> = R extends { body: infer B extends z.ZodType } ? { body: z.input<B> } : Empty;

/** `params`, `query` and `body` as the contract's input schemas accept them. */
type RawArgs<N extends OperationName> = Prettify<
  PathArgs<Route<N>> & QueryArgs<Route<N>> & BodyArgs<Route<N>>
>;

/** Keys whose value accepts `{}` (every field optional, e.g. a restore's empty body) become optional. */
type OptionalWhenEmpty<A> = Prettify<
  { [K in keyof A as Empty extends A[K] ? never : K]: A[K] } & {
    [K in keyof A as Empty extends A[K] ? K : never]?: A[K];
  }
>;

/**
 * The input of an operation: `params` (snake_case path parameters such as `page_id`), `query`
 * and `body`, each typed from the contract's input schemas. Parts whose fields are all optional
 * may be left out, so `client.listPages()` and `client.restorePage({ params: { page_id } })` work.
 */
export type OperationArgs<N extends OperationName> = OptionalWhenEmpty<RawArgs<N>>;

/** The parsed success body of an operation (for `createAccountLog`, the entry for both 200 and 201). */
export type OperationResult<N extends OperationName> =
  Route<N>['responses'][SuccessStatus<N>] extends infer S extends z.ZodType ? z.output<S> : never;

type Statuses<N extends OperationName> = keyof Route<N>['responses'];

/**
 * The operations that take `ifMatch`: the writes on a resource that has an `ETag` (updates,
 * deletes, archive, restore, publish, …), which declare 412 `PRECONDITION_FAILED`.
 */
export type IfMatchOperationName = {
  [N in JsonOperationName]: 412 extends Statuses<N> ? N : never;
}[JsonOperationName];

/**
 * The operations that take `ifNoneMatch`: the reads of one resource (`getPage`, `getTopic`, …),
 * which declare 304 Not Modified.
 */
export type IfNoneMatchOperationName = {
  [N in JsonOperationName]: 304 extends Statuses<N> ? N : never;
}[JsonOperationName];

/** One item of a paginated operation's `items`. */
export type OperationItem<N extends PaginatedOperationName> =
  OperationResult<N> extends { items: Array<infer Item> } ? Item : never;

/** Options accepted by every call, overriding the client's defaults for that call. */
export interface RequestOptions {
  /** Cancels the call, including any pending retry; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Timeout of each attempt in milliseconds (connect, headers and body). */
  timeoutMs?: number;
  /** Retries after the first attempt; 0 disables retries. */
  maxRetries?: number;
  /** Extra request headers (e.g. tracing). `x-api-key` and `content-type` are managed by the client. */
  headers?: Record<string, string>;
  /**
   * The `Idempotency-Key` of a POST or PATCH call (1 to 255 visible ASCII characters). By default
   * the client makes a fresh random key per call; give your own to make a call safe to repeat
   * beyond the client's retries, e.g. after a crash of your process (derive it from the work, such
   * as a job or row id). Every retry of the call sends the same key. Ignored by GET and DELETE.
   */
  idempotencyKey?: string;
}

/** The option of the operations in {@link IfMatchOperationName}. */
export interface IfMatchOption {
  /**
   * Makes the write conditional (`If-Match`): it is done only while the resource's `ETag` is
   * still this one, usually `getEtag(result)` of your last read or write of it. When someone
   * changed the resource meanwhile the call rejects with a `PreconditionFailedError`, is not
   * retried, and nothing changes. `*` means "any current version". Leave the option out to
   * write unconditionally; naming it with `undefined` throws a `TypeError` rather than dropping
   * the check silently.
   */
  ifMatch?: string;
}

/** The option of the operations in {@link IfNoneMatchOperationName}. */
export interface IfNoneMatchOption {
  /**
   * Makes the read conditional (`If-None-Match`): the `ETag` of the copy you hold (or several,
   * comma-separated). While the resource is unchanged the server answers 304 without a body,
   * which does not count against the rate limit, and the call resolves to `undefined`: your
   * copy is current. `undefined` sends an ordinary read (e.g. the first poll of a loop).
   */
  ifNoneMatch?: string | undefined;
}

/**
 * The options of one operation's call: {@link RequestOptions}, plus `ifMatch` on the writes
 * that take it and `ifNoneMatch` on the reads that take it.
 */
export type CallOptions<N extends OperationName> = RequestOptions &
  (N extends IfMatchOperationName ? IfMatchOption : Empty) &
  (N extends IfNoneMatchOperationName ? IfNoneMatchOption : Empty);

/** A success result with its HTTP metadata, from `client.withResponse.<operation>()`. */
export interface ApiResponse<T> {
  /**
   * The parsed, typed success body. After a 304 it is the client's cached copy (`fromCache`),
   * or `undefined` when the call named its own `ifNoneMatch`.
   */
  data: T;
  /** HTTP status, e.g. 201 for a new account log, 200 for an idempotent replay, 304 for an unchanged resource. */
  status: number;
  /**
   * The resource's `ETag` (quotes included), for `ifMatch` or `ifNoneMatch`; `undefined` when the
   * response has none (lists, operations without a tagged resource). Also `getEtag(data)`.
   */
  etag: string | undefined;
  /** True when the server answered 304 and `data` is the copy kept by the client's `etagCache`. */
  fromCache: boolean;
  /** Response headers. */
  headers: Headers;
  /** The request id (`x-request-id`) of the attempt that succeeded. */
  requestId: string | undefined;
  /** Number of attempts made, 1 when no retry was needed. */
  attempts: number;
}

type ArgsWith<N extends OperationName, O> =
  Empty extends OperationArgs<N>
    ? [args?: OperationArgs<N>, options?: O]
    : [args: OperationArgs<N>, options?: O];

/** The parameters of an operation's method: `args` may be left out when every part of it is optional. */
export type ArgsTuple<N extends OperationName> = ArgsWith<N, CallOptions<N>>;

/** Options of a read that names no `ifNoneMatch`, and so always resolves to a body. */
type Unconditional<N extends OperationName> = CallOptions<N> & { ifNoneMatch?: undefined };

/**
 * A read of one resource (see {@link IfNoneMatchOperationName}). Without `ifNoneMatch` it resolves
 * to the body (with the client's `etagCache`, the cached copy when the server answers 304). With
 * `ifNoneMatch` it resolves to `undefined` when the server answers 304: the copy you hold is current.
 */
export interface ConditionalReadMethod<N extends OperationName> {
  (...args: ArgsWith<N, Unconditional<N>>): Promise<OperationResult<N>>;
  (...args: ArgsTuple<N>): Promise<OperationResult<N> | undefined>;
}

/** The `withResponse` variant of a {@link ConditionalReadMethod}: `data` is `undefined` after a 304 it asked for. */
export interface ConditionalReadMethodWithResponse<N extends OperationName> {
  (...args: ArgsWith<N, Unconditional<N>>): Promise<ApiResponse<OperationResult<N>>>;
  (...args: ArgsTuple<N>): Promise<ApiResponse<OperationResult<N> | undefined>>;
}

/** The method of one operation on the client. */
export type OperationMethod<N extends OperationName> = N extends IfNoneMatchOperationName
  ? ConditionalReadMethod<N>
  : (...args: ArgsTuple<N>) => Promise<OperationResult<N>>;

/** The `withResponse` variant of one operation's method. */
export type OperationMethodWithResponse<N extends OperationName> = N extends IfNoneMatchOperationName
  ? ConditionalReadMethodWithResponse<N>
  : (...args: ArgsTuple<N>) => Promise<ApiResponse<OperationResult<N>>>;

/** One method per contract operation, named exactly as the operation. */
export type OperationMethods = { [N in JsonOperationName]: OperationMethod<N> };

/** The same methods, resolving to {@link ApiResponse} (status, headers, request id, attempts). */
export type OperationMethodsWithResponse = { [N in JsonOperationName]: OperationMethodWithResponse<N> };
