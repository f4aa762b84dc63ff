import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { freePort, startServer } from '@customer-api/test-server';
import { closure, emptyProject, installFromWorkspace, type Packed } from './consumer.js';
import { run } from './run.js';

/** Creates (`create`) or drops a database on TEST_DATABASE_URL's server with the installed `pg`. */
const ADMIN_SCRIPT = `import pg from 'pg';
const [action, name] = process.argv.slice(1);
const client = new pg.Client({ connectionString: process.env.ADMIN_URL });
await client.connect();
await client.query(action === 'create' ? \`CREATE DATABASE "\${name}"\` : \`DROP DATABASE IF EXISTS "\${name}" WITH (FORCE)\`);
await client.end();`;

/** Asks the running server for its health, version header and a page list with a fresh key. */
async function probe(url: string, version: string, apiKey: string): Promise<void> {
  const health = await fetch(`${url}/healthz`);
  const body = (await health.json()) as { version?: string };
  const header = health.headers.get('server');
  if (body.version !== version || header !== `customer-api/${version}`) {
    throw new Error(`/healthz reports ${JSON.stringify(body)} and Server: ${header}; expected ${version}`);
  }
  const pages = await fetch(`${url}/v0/pages?limit=1`, { headers: { 'x-api-key': apiKey } });
  if (pages.status !== 200) throw new Error(`GET /v0/pages answered ${pages.status}: ${await pages.text()}`);
}

/**
 * Installs the packed server (and the packed contract it depends on) alone in an empty project,
 * then runs its bin from there: `migrate` and `serve` against a fresh PostgreSQL database on
 * TEST_DATABASE_URL's server (embedded PGlite when unset), a key from `keys create`, one request,
 * `whileServing` (consumers calling it with that key), and SIGTERM. Returns what it ran against.
 */
export async function checkServer(
  dir: string,
  server: Packed,
  packed: Packed[],
  whileServing: (url: string, apiKey: string) => Promise<void> = async () => {},
): Promise<string> {
  const project = emptyProject(dir);
  await installFromWorkspace(project, closure(server, [server, ...packed]), undefined);
  const main = join(project, 'node_modules', server.manifest.name, 'dist', 'main.js');
  const adminUrl = process.env.TEST_DATABASE_URL;
  const name = `release_check_${Date.now().toString(36)}`;
  const admin = (action: 'create' | 'drop', url: string) =>
    run(process.execPath, ['--input-type=module', '-e', ADMIN_SCRIPT, action, name], project, 60_000, {
      ADMIN_URL: url,
    });
  let databaseUrl: string | undefined;
  if (adminUrl) {
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    await admin('create', adminUrl);
  }
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    WEBHOOKS_DISPATCHER: '0',
    SECRETS_ENCRYPTION_KEYS: randomBytes(32).toString('base64'),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: join(dir, 'data') }),
  };
  try {
    const cli = (...args: string[]) => run(process.execPath, [main, ...args], project, undefined, env);
    const migrated = await cli('migrate');
    if (!migrated.includes('Migrations applied'))
      throw new Error(`customer-api migrate printed:\n${migrated}`);
    const keyLine = (await cli('keys', 'create', '--tenant', 'release-check'))
      .split('\n')
      .find((line) => line.startsWith('{'));
    const created = JSON.parse(keyLine ?? '{}') as { apiKey: string };
    // `customer-api serve` answers /readyz within 60 s or is killed; its output is in the error.
    const serving = await startServer({
      cli: main,
      cwd: project,
      env: { ...process.env, ...env },
      port: Number(env.PORT),
      timeoutMs: 60_000,
      killAfterMs: 0,
    });
    let exitStatus: number | string;
    try {
      await probe(serving.url, server.manifest.version, created.apiKey);
      await whileServing(serving.url, created.apiKey);
    } finally {
      exitStatus = await serving.stop();
    }
    if (exitStatus !== 0) throw new Error(`customer-api serve exited ${exitStatus} on SIGTERM`);
  } finally {
    if (adminUrl) await admin('drop', adminUrl).catch(() => '');
  }
  return databaseUrl ? 'PostgreSQL' : 'embedded PGlite (TEST_DATABASE_URL unset)';
}
