import type { Contract, OperationName } from '@customer-api/contract';
import type { AppRouteImplementation } from '@ts-rest/fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import type { Clock } from '../lib/clock.js';
import type { IdSource } from '../lib/ids.js';
import type { CursorCodec } from '../lib/pagination.js';
import type { DownloadLinks } from './assets/content/links.js';

/** What every module's handlers and services receive: no globals, no Fastify types in services. */
export interface AppDeps {
  db: Db;
  clock: Clock;
  ids: IdSource;
  cursors: CursorCodec;
  /** Signs the assets' download links. */
  downloadLinks: DownloadLinks;
  config: Config;
}

/** Implementations of some contract operations. */
export type Routes<K extends OperationName> = { [P in K]: AppRouteImplementation<Contract[P]> };

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
