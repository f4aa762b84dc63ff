// Gives server.json (the MCP Registry entry) the package's version: the root `changeset` script
// (tools/release-check/scripts/changeset.mjs) runs it after `changeset version`, so the entry and
// the package never disagree (a test checks they match).
// The version fields are rewritten in place, so the file keeps its formatting.
import { readFileSync, writeFileSync } from 'node:fs';

const dir = new URL('../', import.meta.url);
const { version } = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8'));
const path = new URL('server.json', dir);
const text = readFileSync(path, 'utf8').replace(/("version":\s*)"[^"]*"/g, `$1"${version}"`);
JSON.parse(text); // still JSON
writeFileSync(path, text);
