// Pieces of the request paths that the benchmarks reproduce without HTTP, to compare the service
// with the database's own work (`@customer-api/server/internals`). Not an API: they change with the code.
export { parseTimestamptz } from './db/timestamptz.js';
export { recordVersionEvent } from './delivery/outbox.js';
export { readCounterStatement } from './lib/counters.js';
export { CursorCodec, toPage } from './lib/pagination.js';
export { listPagesFirstStatement } from './modules/pages/pages.repo.js';
export { toApiPage } from './modules/pages/pages.service.js';
export { createWebhookSubscription } from './modules/webhooks/webhooks.service.js';
