import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closure, emptyProject, installFromWorkspace, type OwnZod, type Packed } from './consumer.js';
import { binOf, run } from './run.js';

/** The contract's schemas are the consumer's zod's types: they compose with its own schemas. */
const TYPES = `import { z } from 'zod';
import { CreatePageBodySchema, PageSchema } from '@customer-api/contract';
import { type CustomerApiClient, createClient } from '@customer-api/client';

const Annotated = PageSchema.extend({ seenLocally: z.boolean() });
export type Annotated = z.infer<typeof Annotated>;
export const body: z.ZodType = CreatePageBodySchema;
export const client: CustomerApiClient = createClient({ apiKey: 'cak_x' });
export async function firstName(): Promise<string | undefined> {
  const pages = await client.listPages({ query: { limit: 1 } });
  return pages.items[0]?.name;
}
`;

/**
 * At run time too the schemas are instances of the consumer's zod (one copy); with a server
 * address and key, one call validated against the contract's schemas.
 */
const RUN = `import assert from 'node:assert/strict';
import { z } from 'zod';
import { PageSchema } from '@customer-api/contract';
import { createClient } from '@customer-api/client';
assert.ok(PageSchema instanceof z.ZodType, "the contract's schemas are not the consumer's zod's");
const [url, apiKey] = process.argv.slice(2);
if (url) {
  const client = createClient({ baseUrl: url, apiKey, maxRetries: 0, validateResponses: true });
  const pages = await client.listPages({ query: { limit: 1 } });
  assert.ok(Array.isArray(pages.items));
  await client.close?.();
}
console.log('ok');
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  },
  include: ['types.mts'],
};

/** A consumer project with its own zod: `call` runs one request against a server. */
export interface ZodConsumer {
  zod: OwnZod;
  call(url: string, apiKey: string): Promise<void>;
}

/**
 * A consumer that installs the packed client (and the contract it brings) beside its own zod:
 * the peer range must accept that zod, the consumer's TypeScript must type-check against it, and
 * the contract's schemas must be instances of it.
 */
export async function zodConsumer(dir: string, packed: Packed[], zod: OwnZod): Promise<ZodConsumer> {
  const project = emptyProject(dir);
  const client = packed.find((p) => p.manifest.name === '@customer-api/client');
  if (!client) throw new Error('the client was not packed');
  await installFromWorkspace(project, closure(client, packed), zod);
  writeFileSync(join(project, 'types.mts'), TYPES);
  writeFileSync(join(project, 'run.mjs'), RUN);
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  await run(process.execPath, [binOf('typescript', 'bin/tsc'), '-p', 'tsconfig.json'], project);
  await run(process.execPath, ['run.mjs'], project);
  return {
    zod,
    call: async (url, apiKey) => void (await run(process.execPath, ['run.mjs', url, apiKey], project)),
  };
}
