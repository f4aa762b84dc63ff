// Entry point of Bun, Deno, Workers and browsers (every export condition but `node`): the
// runtime's global `fetch`, no Node.js module. The same API as the Node.js entry point.
export { createClient } from './client.web.js';
export * from './exports.js';
