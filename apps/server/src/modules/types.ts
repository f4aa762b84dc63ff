import type { Contract, OperationName, TaggedResource } from '@customer-api/contract';
import type { AppRouteImplementation } from '@ts-rest/fastify';
import type { Config } from '../config.js';
import type { Handle, Tx } from '../db/port.js';
import type { Clock } from '../lib/clock.js';
import type { IdSource } from '../lib/ids.js';
import type { CursorCodec } from '../lib/pagination.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { DownloadLinks } from './assets/content/links.js';

/**
 * What every module's handlers receive once: no globals, no Fastify types in services. The
 * database handle is not here: each request's handler is given its own (`HandlerArgs.db`).
 */
export interface AppDeps {
  clock: Clock;
  ids: IdSource;
  cursors: CursorCodec;
  /** Signs the assets' download links. */
  downloadLinks: DownloadLinks;
  /** Seals and opens webhook signing secrets at rest. */
  secrets: SecretBox;
  config: Config;
}

/** A service's dependencies: the app's, and the handle its statements run on. */
export interface ServiceDeps extends AppDeps {
  db: Handle;
}

/**
 * What a handler receives: ts-rest's arguments and `db`, the handle of the request: the tenant's
 * `Db` (its statements hold the tenant's share of connections), or, for a request with an
 * `Idempotency-Key`, the `Tx` in which the kept response is written too (`http/idempotency.ts`).
 */
export type HandlerArgs<P extends OperationName> = Parameters<AppRouteImplementation<Contract[P]>>[0] & {
  db: Handle;
};

/** The implementation of one contract operation. */
export type Handler<P extends OperationName> = (
  args: HandlerArgs<P>,
) => ReturnType<AppRouteImplementation<Contract[P]>>;

/** Implementations of some contract operations. */
export type Routes<K extends OperationName> = { [P in K]: Handler<P> };

/** A request's path parameters, by name. */
export type PathParams = Readonly<Record<string, string>>;

/** The path parameter `name` (the contract's path requires it). */
export function pathParam(params: PathParams, name: string): string {
  const value = params[name];
  if (value === undefined) throw new Error(`path parameter ${name} missing`);
  return value;
}

/**
 * How a write's `If-Match` is checked on one of a module's resources (`http/conditional.ts`): what
 * locks it for the rest of a transaction, and what reads it as the module's operations answer it.
 */
export interface TaggedAccess {
  /** Locks the resource named by `params` until `db`'s transaction ends; resolves quietly when it is missing. */
  lock(deps: ServiceDeps & { db: Tx }, tenantId: string, params: PathParams): Promise<void>;
  /** The resource as the operations that answer with it do; throws NotFoundError when it is missing. */
  read(deps: ServiceDeps, tenantId: string, params: PathParams): Promise<unknown>;
}

/** The {@link TaggedAccess} of the resources a module owns. */
export type TaggedResources = Partial<Record<TaggedResource, TaggedAccess>>;

/** A module: the contract operations it implements, built from the app's dependencies. */
export interface ApiModule {
  readonly name: string;
  routes(deps: AppDeps): Partial<Routes<OperationName>>;
  /** How `If-Match` is checked on the resources the module owns. */
  readonly tagged: TaggedResources;
}

/** Declares a module implementing exactly the operations `K` (checked against the contract). */
export function defineModule<K extends OperationName>(
  name: string,
  routes: (deps: AppDeps) => Routes<K>,
  tagged: TaggedResources = {},
): ApiModule {
  return { name, routes, tagged };
}
