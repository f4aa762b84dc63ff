import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { closure, emptyProject, installFromWorkspace, type Packed } from './consumer.js';
import { packageDir, run } from './run.js';

/**
 * Upper bound of the browser bundle below, gzipped: openai 7.57's `OpenAI` in the same setup
 * (docs/decisions/0219-client-types-and-bundle-without-ts-rest.md).
 */
export const MAX_BROWSER_GZIP_BYTES = 36 * 1024;

/** What a page that calls the API imports: the client and one error class. */
const PAGE = `import { createClient, NotFoundError } from '@customer-api/client';
export { createClient, NotFoundError };
`;

const esbuild = join(packageDir, '../../packages/client/node_modules/esbuild/bin/esbuild');

interface Metafile {
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
}

/**
 * Bundles `createClient` and one error class of the packed client for the browser (esbuild, its
 * "browser" export, minified, one file) and fails above {@link MAX_BROWSER_GZIP_BYTES} gzipped, or
 * when any Zod or contract schema code is in it. Returns the line the release check prints.
 */
export async function checkBundleSize(dir: string, packed: Packed[]): Promise<string> {
  const client = packed.find((p) => p.manifest.name === '@customer-api/client');
  if (!client) throw new Error('the client was not packed');
  const project = emptyProject(dir);
  await installFromWorkspace(project, closure(client, packed));
  writeFileSync(join(project, 'page.mjs'), PAGE);
  await run(
    esbuild,
    [
      'page.mjs',
      '--bundle',
      '--platform=browser',
      '--format=esm',
      '--minify',
      '--outfile=page.js',
      '--metafile=meta.json',
      '--log-level=warning',
    ],
    project,
  );
  const code = readFileSync(join(project, 'page.js'));
  const gzip = gzipSync(code, { level: 9 }).length;
  const meta = JSON.parse(readFileSync(join(project, 'meta.json'), 'utf8')) as Metafile;
  const inputs = Object.values(meta.outputs).flatMap((output) => Object.keys(output.inputs));
  const schemas = inputs.filter((input) =>
    /node_modules\/(zod|@ts-rest|@customer-api\/contract)\//.test(input),
  );
  if (schemas.length > 0) throw new Error(`the browser bundle carries schema code: ${schemas.join(', ')}`);
  const figures = `${(code.length / 1024).toFixed(1)} KB minified, ${(gzip / 1024).toFixed(1)} KB gzip`;
  if (gzip > MAX_BROWSER_GZIP_BYTES) {
    throw new Error(`the browser bundle is ${figures}, above ${MAX_BROWSER_GZIP_BYTES / 1024} KB gzip`);
  }
  return `browser bundle of createClient and NotFoundError (esbuild, "browser" export): ${figures}, no zod, ts-rest or contract code (bound ${MAX_BROWSER_GZIP_BYTES / 1024} KB gzip)`;
}
