// Entry point of browser bundles (the `browser` export condition): the page's `fetch`, and none
// of the contract's schemas, which `validateResponses: contract` brings when a page wants them.
export { createClient } from './client.browser.js';
export * from './exports.js';
