import type { Call, Recorder } from './exchanges.js';

type Json = Record<string, unknown>;
/** A string field of a response body (the test fails here when it is missing). */
export const str = (value: unknown, name: string): string => {
  const found = (value as Json | undefined)?.[name];
  if (typeof found !== 'string') throw new Error(`response has no ${name}: ${JSON.stringify(value)}`);
  return found;
};

/** The successful call of each operation, kept to derive its error calls from. */
export type Canonical = Map<string, Call>;

/**
 * What a part of the successful traffic drives with: the recorder, the owner key, and `call`,
 * which sends with that key, keeps the call as its operation's successful one and answers the body.
 */
export interface Driver {
  rec: Recorder;
  key: string;
  call: (c: Omit<Call, 'key'>) => Promise<unknown>;
}
