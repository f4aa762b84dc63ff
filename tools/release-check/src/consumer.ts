import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binOf, run } from './run.js';

/** Imports from plain ESM, as a Node.js consumer would; exits non-zero when an export is missing. */
const ESM_CHECK = `import assert from 'node:assert/strict';
import { contract, generateOpenApi, OPERATION_NAMES } from '@customer-api/contract';
import { createClient, verifyWebhook, NotFoundError } from '@customer-api/client';
import { buildServer, parseConfig } from '@customer-api/mcp';
import { createRequire } from 'node:module';
assert.ok(OPERATION_NAMES.includes('listPages'));
assert.equal(typeof contract.listPages, 'object');
assert.equal(generateOpenApi().openapi, '3.1.0');
const require = createRequire(import.meta.url);
assert.equal(require('@customer-api/contract/openapi.json').openapi, '3.1.0');
const client = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'cak_x', maxRetries: 0 });
assert.equal(typeof client.listPages, 'function');
await client.close();
assert.equal(typeof verifyWebhook, 'function');
assert.ok(new NotFoundError({ status: 404, headers: new Headers(), body: {}, error: {} }) instanceof Error);
assert.equal(typeof buildServer, 'function');
assert.equal(typeof parseConfig, 'function');
console.log('esm imports ok');
`;

/** Type-checks a consumer's TypeScript against the packed declarations. */
const TS_CHECK = `import { type Page, contract } from '@customer-api/contract';
import { type CustomerApiClient, createClient, type WebhookDeliveryBody } from '@customer-api/client';
import { buildServer } from '@customer-api/mcp';

const client: CustomerApiClient = createClient({ apiKey: 'cak_x' });
export async function firstPageName(): Promise<string | undefined> {
  const pages = await client.listPages({ query: { limit: 1 } });
  const page: Page | undefined = pages.items[0];
  return page?.name;
}
export function eventType(delivery: WebhookDeliveryBody): string {
  return delivery.payload.type;
}
// @ts-expect-error: limit is a number; a typed client rejects a string.
void client.listPages({ query: { limit: 'ten' } });
export const route: string = contract.listPages.path;
export const server: unknown = buildServer;
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    // ts-rest's own .d.ts files name zod 3 types and fail a full check under zod 4; the usage
    // below is still checked against our declarations (the @ts-expect-error proves they are typed).
    skipLibCheck: true,
    types: ['node'],
  },
  include: ['check.mts'],
};

/**
 * A scratch consumer project: npm installs the tarballs (their dependencies come from the
 * registry), imports them from ESM, runs the MCP bin, and type-checks a TypeScript file.
 */
export async function checkConsumer(dir: string, tarballs: string[]): Promise<void> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  await run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--loglevel=error',
      ...tarballs,
      '@types/node@^20.19.0',
    ],
    dir,
  );
  writeFileSync(join(dir, 'esm.mjs'), ESM_CHECK);
  await run(process.execPath, ['esm.mjs'], dir);
  const help = await run(process.execPath, ['node_modules/@customer-api/mcp/dist/main.js', '--help'], dir);
  if (!help.includes('Usage: customer-api-mcp')) throw new Error(`customer-api-mcp --help printed:\n${help}`);
  writeFileSync(join(dir, 'check.mts'), TS_CHECK);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  await run(process.execPath, [binOf('typescript', 'bin/tsc'), '-p', 'tsconfig.json'], dir);
}
