// The server as a library, for the workspace's tests and benchmarks (`@customer-api/server`):
// build the app in-process on a database, and the CLI's own steps (migrate, tenants and keys, the
// webhook dispatcher). The package is private: these names follow the code, not a release.
export { type BuildAppOptions, buildApp } from './app.js';
export { type Config, loadConfig } from './config.js';
export { type Database, type DatabaseLocation, openDatabase } from './db/database.js';
export { runMigrations } from './db/migrate.js';
export { createDispatcher, type DispatcherOptions, type WebhookDispatcher } from './delivery/dispatcher.js';
export { type Clock, systemClock } from './lib/clock.js';
export { type IdSource, newId } from './lib/ids.js';
export { openSecretBox } from './secrets/keyring.js';
export { generateEncryptionKey, SecretBox } from './secrets/secret-box.js';
export { createApiKey, ensureTenant, type Scope } from './tenants/tenants.service.js';
