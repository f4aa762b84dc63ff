// Node.js entry point (the `node` export condition): undici pools each client's connections.
export { createClient } from './client.js';
export * from './exports.js';
