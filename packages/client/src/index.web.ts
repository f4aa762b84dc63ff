// Entry point of Bun, Deno, Workers and React Native (every export condition but `node` and
// `browser`): the runtime's global `fetch`, no Node.js module. The same API as the Node.js entry.
export { createClient } from './client.web.js';
export * from './exports.js';
