/** A JSON value as written into the OpenAPI document. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A JSON object of the OpenAPI document. */
export type JsonObject = { [key: string]: Json };

/** Which form of a schema is converted: what a request sends or what a response holds. */
export type Io = 'input' | 'output';
