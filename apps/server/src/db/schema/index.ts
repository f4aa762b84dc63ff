// The whole database schema. A module adds its tables here with one line.
export * from './accounts.js';
export * from './asset-content.js';
export * from './assets.js';
export * from './audiences.js';
export * from './idempotency.js';
export * from './messages.js';
export * from './pages.js';
export * from './persons.js';
export * from './sessions.js';
export * from './system.js';
export * from './tenants.js';
export * from './topics.js';
export * from './webhooks.js';
