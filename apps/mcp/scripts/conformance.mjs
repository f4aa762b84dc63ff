#!/usr/bin/env node
// Runs the official MCP conformance suite (version in argv[2]) against MCP_URL. The suite
// imports fs.globSync, which Node 22 added: on an older Node it runs under Node 24 from npm.
import { spawnSync } from 'node:child_process';

const [version, ...rest] = process.argv.slice(2);
if (!version) {
  console.error('usage: conformance.mjs <suite version> [suite options]');
  process.exit(2);
}
const suite = `@modelcontextprotocol/conformance@${version}`;
const url = process.env.MCP_URL ?? 'http://localhost:3001/mcp';
const major = Number(process.versions.node.split('.')[0]);
const server = ['server', '--url', url, ...rest];
const args =
  major >= 22
    ? ['--yes', suite, ...server]
    : ['--yes', '-p', 'node@24', '-p', suite, 'conformance', ...server];
if (major < 22) {
  console.error(
    `Node ${process.versions.node} has no fs.globSync, which ${suite} needs: running it on Node 24 from npm.`,
  );
}
const run = spawnSync('npx', args, { stdio: 'inherit' });
process.exit(run.status ?? 1);
