import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { compileCalls } from './compile-calls.js';

const require = createRequire(import.meta.url);

/**
 * Calls through openapi-fetch typed by the generated `paths`: a page created, read and listed, an
 * upload of raw bytes (typed Blob) and its signed download read back as a Blob.
 */
const CALLS = `import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';

type Page = components['schemas']['Page'];

/** Creates a page, reads it back, lists one page, uploads bytes to an asset and downloads them. */
export async function calls(baseUrl: string, apiKey: string) {
  const client = createClient<paths>({ baseUrl, headers: { 'x-api-key': apiKey } });
  const created = await client.POST('/v0/pages', {
    body: { name: 'Generated', title: 'From openapi-fetch', pageContext: 'openapi-typescript', brandId: 'brand_acme', pageType: 'outbound' },
  });
  const page: Page | undefined = created.data;
  const read = await client.GET('/v0/pages/{page_id}', { params: { path: { page_id: page?.pageId ?? '' } } });
  const list = await client.GET('/v0/pages', { params: { query: { limit: 1 } } });
  const asset = await client.POST('/v0/assets', {
    body: { name: 'Logo', data: { type: 'logo', fileId: 'file_logo' } },
  });
  const asset_id = asset.data?.assetId ?? '';
  const bytes: Blob = new Blob(['<svg xmlns="http://www.w3.org/2000/svg"/>'], { type: 'image/svg+xml' });
  const put = await client.PUT('/v0/assets/{asset_id}/content', {
    params: { path: { asset_id } },
    body: bytes,
    bodySerializer: (body) => body,
    headers: { 'content-type': 'image/svg+xml' },
  });
  const link = new URL(put.data?.downloadUrl ?? 'http://invalid/');
  const download = await client.GET('/v0/assets/{asset_id}/download', {
    params: {
      path: { asset_id },
      query: {
        tenant: link.searchParams.get('tenant') ?? '',
        expires: link.searchParams.get('expires') ?? '',
        signature: link.searchParams.get('signature') ?? '',
      },
    },
    parseAs: 'blob',
  });
  const body: Blob | undefined = download.data;
  return {
    statuses: [created, read, list, asset, put, download].map((call) => call.response.status),
    sameTitle: read.data?.title === page?.title,
    listed: list.data?.items.length,
    downloaded: body ? await body.text() : undefined,
    contentType: download.response.headers.get('content-type'),
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
    exactOptionalPropertyTypes: true,
    skipLibCheck: true,
    types: [],
    outDir: 'dist',
  },
  include: ['*.ts'],
};

/** What the calls saw. */
export interface FetchCallsResult {
  statuses: number[];
  sameTitle: boolean;
  listed: number | undefined;
  downloaded: string | undefined;
  contentType: string | null;
}

/** The generated types and calls compiled: the type errors (none: empty) and the calls to run. */
export interface CompiledFetchClient {
  typeErrors: string;
  calls(baseUrl: string, apiKey: string): Promise<FetchCallsResult>;
}

const BLOB = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier('Blob'));

/**
 * Generates `paths` and `components` from `document` with openapi-typescript into `dir` (binary
 * schemas typed Blob, the transform its documentation gives for file bodies), and compiles them
 * with calls through openapi-fetch under `tsc --strict`.
 */
export async function generateAndCompileFetch(document: string, dir: string): Promise<CompiledFetchClient> {
  const ast = await openapiTS(pathToFileURL(document), {
    transform: (schema) => (schema.format === 'binary' ? BLOB : undefined),
  });
  await mkdir(join(dir, 'node_modules'), { recursive: true });
  // openapi-fetch as this package has it (its own dependencies resolve beside its real path).
  await symlink(
    dirname(require.resolve('openapi-fetch/package.json')),
    join(dir, 'node_modules/openapi-fetch'),
  );
  await writeFile(join(dir, 'schema.ts'), astToString(ast));
  return compileCalls<CompiledFetchClient['calls']>(dir, TSCONFIG, CALLS);
}
