import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createClient } from '@hey-api/openapi-ts';
import { compileCalls } from './compile-calls.js';

/** Three calls through the generated SDK, type-checked with it; prints what the server answered. */
const CALLS = `import { client } from './client/client.gen.js';
import { createPage, getPage, listPages } from './client/sdk.gen.js';
import type { Page } from './client/types.gen.js';

/** Creates a page, reads it back and lists one page. */
export async function calls(baseUrl: string, apiKey: string) {
client.setConfig({ baseUrl, headers: { 'x-api-key': apiKey } });
const created = await createPage({
  body: { name: 'Generated', title: 'From a generated client', pageContext: 'hey-api', brandId: 'brand_acme', pageType: 'outbound' },
});
const page: Page | undefined = created.data;
const read = await getPage({ path: { page_id: page?.pageId ?? '' } });
const list = await listPages({ query: { limit: 1 } });
return {
  statuses: [created.response.status, read.response.status, list.response.status],
  sameTitle: read.data?.title === page?.title,
  listed: list.data?.items.length,
};
}
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    lib: ['ES2023', 'DOM'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    types: [],
    outDir: 'dist',
  },
  include: ['*.ts', 'client/**/*.ts'],
};

/** The generated client compiled: its type errors (none: empty) and the compiled calls. */
export interface CompiledClient {
  typeErrors: string;
  calls(baseUrl: string, apiKey: string): Promise<{ statuses: number[]; sameTitle: boolean; listed: number }>;
}

/**
 * Generates a fetch client from `document` with @hey-api/openapi-ts into `dir`, and compiles it and
 * three calls with `tsc --strict` (any type error is reported).
 */
export async function generateAndCompile(document: string, dir: string): Promise<CompiledClient> {
  await createClient({ input: document, output: join(dir, 'client'), logs: { level: 'silent' } });
  await mkdir(dir, { recursive: true });
  return compileCalls<CompiledClient['calls']>(dir, TSCONFIG, CALLS, ['--strict']);
}
