import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closure, emptyProject, installFromWorkspace, type Packed } from './consumer.js';
import { binOf, packageDir, run } from './run.js';

/** A consumer's use of the client and the contract, type-checked against the packed declarations. */
const CONSUMER = `import { type Contract, contract, type Page } from '@customer-api/contract';
import {
  type ClientOptions,
  type CustomerApiClient,
  createClient,
  NotFoundError,
  type OperationArgs,
  type WebhookDeliveryBody,
} from '@customer-api/client';

const options: ClientOptions = { apiKey: 'cak_x', maxRetries: 1, validateResponses: contract };
const client: CustomerApiClient = createClient(options);

export async function firstPage(): Promise<Page | undefined> {
  const pages = await client.listPages({ query: { limit: 1 } });
  return pages.items[0];
}
export async function names(): Promise<string[]> {
  const out: string[] = [];
  for await (const page of client.iterate('listPages', { query: { limit: 50 } })) out.push(page.name);
  return out;
}
export async function missing(id: string): Promise<boolean> {
  const found = await client.getPage({ params: { page_id: id } }).catch((error: unknown) => error);
  return found instanceof NotFoundError && found.code === 'NOT_FOUND';
}
export const restore: OperationArgs<'restorePage'> = { params: { page_id: 'page_1' } };
export const eventType = (delivery: WebhookDeliveryBody): string => delivery.payload.type;
export const route: string = (contract satisfies Contract).listPages.path;
// @ts-expect-error: limit is a number; a typed client rejects a string.
void client.listPages({ query: { limit: 'ten' } });
// @ts-expect-error: getPage needs its path parameter.
void client.getPage({});
`;

/** Options a strict consumer turns on; skipLibCheck off makes TypeScript check every .d.ts it loads. */
const STRICT = {
  target: 'ES2023',
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: false,
  noEmit: true,
  types: ['node'],
};

const RESOLUTIONS = {
  node16: { module: 'Node16', moduleResolution: 'Node16' },
  bundler: { module: 'Preserve', moduleResolution: 'Bundler' },
};

/** TypeScript 5.x (the client's `typescript-5` dev dependency) and 7 (the workspace's). */
const COMPILERS = [
  { name: 'typescript-5', tsc: join(packageDir, '../../packages/client/node_modules/typescript-5/bin/tsc') },
  { name: 'typescript', tsc: binOf('typescript', 'bin/tsc') },
];

async function version(tsc: string, cwd: string): Promise<string> {
  return (await run(process.execPath, [tsc, '--version'], cwd)).trim().replace(/^Version /, '');
}

/**
 * The packed client and contract, installed into a scratch project, compile for a strict consumer
 * (skipLibCheck off, exactOptionalPropertyTypes) with 0 errors, under Node16 and Bundler module
 * resolution, on TypeScript 5 and 7: their declarations load no broken third-party ones. Returns
 * the line the release check prints.
 */
export async function checkStrictTypes(dir: string, packed: Packed[]): Promise<string> {
  const client = packed.find((p) => p.manifest.name === '@customer-api/client');
  if (!client) throw new Error('the client was not packed');
  const project = emptyProject(dir);
  await installFromWorkspace(project, closure(client, packed));
  writeFileSync(join(project, 'consumer.mts'), CONSUMER);
  const runs = [];
  for (const [resolution, settings] of Object.entries(RESOLUTIONS)) {
    const config = `tsconfig.${resolution}.json`;
    const compilerOptions = { ...STRICT, ...settings };
    writeFileSync(join(project, config), JSON.stringify({ compilerOptions, include: ['consumer.mts'] }));
    for (const { tsc } of COMPILERS) runs.push({ resolution, config, tsc });
  }
  const versions = await Promise.all(COMPILERS.map(({ tsc }) => version(tsc, project)));
  // One compiler at a time, both resolutions at once: each run holds some 700 MB.
  for (const { tsc } of COMPILERS) {
    const mine = runs.filter((r) => r.tsc === tsc);
    await Promise.all(
      // tsc exits non-zero on any error and run() rejects with its output, the errors listed.
      mine.map(({ resolution, config }) =>
        run(process.execPath, [tsc, '-p', config], project, 600_000).catch((error: unknown) => {
          throw new Error(`a strict consumer (${resolution}) does not compile: ${String(error)}`);
        }),
      ),
    );
  }
  return `strict consumer (skipLibCheck false, exactOptionalPropertyTypes) of the packed client and contract: 0 errors with TypeScript ${versions.join(' and ')}, Node16 and Bundler resolution`;
}
