#!/usr/bin/env node
// `pnpm dev`: the server and the MCP server in watch mode against the embedded database.
// tsc --watch recompiles each package into dist/, and `node --watch` restarts a program when a
// file it loaded changes (its own dist/ and the workspace packages it imports). The server uses
// the same data directory as `pnpm start` (apps/server/.data); PORT, DATA_DIR and the other
// variables of the README's configuration table apply.
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const apiUrl = `http://127.0.0.1:${process.env.PORT ?? 3000}`;
const mcpPort = process.env.MCP_PORT ?? '3001';
const colours = { tsc: 36, server: 32, mcp: 35 };

/**
 * Runs a long-lived child in its own process group (so that stopping reaches the compiler the tsc
 * wrapper starts), with its output prefixed by its name; `onLine` sees every line.
 */
function start(name, command, args, options, onLine = () => {}) {
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = `\u001b[${colours[name.split(':')[0]] ?? 0}m[${name}]\u001b[0m `;
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.on('data', (chunk) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        process.stdout.write(`${prefix}${line}\n`);
        onLine(line);
      }
    });
  }
  child.on('exit', (code, signal) => {
    if (!stopping) process.stdout.write(`${prefix}exited (${signal ?? code})\n`);
  });
  return child;
}

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  for (const child of children) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  Promise.all(
    children.map(
      (child) => new Promise((done) => (child.exitCode === null ? child.on('exit', done) : done())),
    ),
  ).then(() => process.exit(0));
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

// One build first, so that both programs start from complete output.
// turbo from the workspace itself: no global pnpm or turbo is assumed.
const built = spawnSync(
  join(root, 'node_modules/.bin/turbo'),
  ['run', 'build', '--filter=@customer-api/server...', '--filter=@customer-api/mcp...'],
  { cwd: root, stdio: 'inherit' },
);
if (built.status !== 0) process.exit(built.status ?? 1);

const tsc = join(root, 'node_modules/typescript/bin/tsc');
const packages = ['packages/contract', 'packages/client', 'apps/server', 'apps/mcp'];
const children = [];
// The programs start once every compiler has finished its first pass, so that the first pass's
// rewrite of dist/ does not restart them at once.
const firstPasses = packages.map(
  (dir) =>
    new Promise((compiled) => {
      const args = [tsc, '-p', 'tsconfig.build.json', '--watch', '--preserveWatchOutput'];
      const onLine = (line) => {
        if (/Watching for file changes/.test(line)) compiled();
      };
      children.push(
        start(`tsc:${dir.split('/')[1]}`, process.execPath, args, { cwd: join(root, dir) }, onLine),
      );
    }),
);
await Promise.all(firstPasses);
children.push(
  start('server', process.execPath, ['--watch', 'dist/main.js', 'start'], {
    cwd: join(root, 'apps/server'),
    env: { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development' },
  }),
  start('mcp', process.execPath, ['--watch', 'dist/main.js', '--http', '--port', mcpPort], {
    cwd: join(root, 'apps/mcp'),
    env: { ...process.env, CUSTOMER_API_BASE_URL: process.env.CUSTOMER_API_BASE_URL ?? apiUrl },
  }),
);
process.stdout.write(
  `\npnpm dev: API on ${apiUrl} (reference page ${apiUrl}/docs), MCP on http://127.0.0.1:${mcpPort}/mcp. Ctrl+C stops.\n\n`,
);
