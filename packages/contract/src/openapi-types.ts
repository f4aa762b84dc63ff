/** A JSON value as written into the OpenAPI document. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A JSON object of the OpenAPI document. */
export type JsonObject = { [key: string]: Json };

/** Which form of a schema is converted: what a request sends or what a response holds. */
export type Io = 'input' | 'output';

/**
 * The parts of a contract route the document is generated from. Structural, so that these files'
 * declarations name no type of the router library (`scripts/own-declarations.mjs` checks it).
 */
export interface Route {
  method: string;
  path: string;
  summary?: string;
  description?: string;
  metadata?: unknown;
  pathParams?: unknown;
  query?: unknown;
  body?: unknown;
  responses: Record<number, unknown>;
}
