// Pieces of the request paths that the benchmarks reproduce without HTTP, to compare the service
// with the database's own work (`@customer-api/server/internals`). Not an API: they change with the code.
export { parseTimestamptz, selectList } from './db/fast.js';
export { pages } from './db/schema/index.js';
export { CursorCodec, toPage } from './lib/pagination.js';
export { toApiPage } from './modules/pages/pages.service.js';
export { createWebhookSubscription } from './modules/webhooks/webhooks.service.js';
export { recordVersionEvent } from './webhooks/outbox.js';
