import type { Contract, OperationName } from '@customer-api/contract';
import type { AppRouteImplementation } from '@ts-rest/fastify';
import type { Config } from '../config.js';
import type { Handle } from '../db/port.js';
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

/** A module: the contract operations it implements, built from the app's dependencies. */
export interface ApiModule {
  readonly name: string;
  routes(deps: AppDeps): Partial<Routes<OperationName>>;
}

/** Declares a module implementing exactly the operations `K` (checked against the contract). */
export function defineModule<K extends OperationName>(
  name: string,
  routes: (deps: AppDeps) => Routes<K>,
): ApiModule {
  return { name, routes };
}
