// Runs after `tsc` in `pnpm build`: the published declarations name no type of `@ts-rest/core`.
// Its prerelease's own .d.ts files name zod 3 types and fail a consumer's full type check
// (skipLibCheck: false) under zod 4; TypeScript checks every declaration file a program loads,
// so a single `import("@ts-rest/core")` in ours would pull them in. The only such type tsc
// infers is the body marker of `c.noBody()` routes, a symbol: it is declared as `symbol`.
// See docs/decisions/0219-client-types-and-bundle-without-ts-rest.md.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const NO_BODY = 'typeof import("@ts-rest/core").ContractNoBody';

const leftovers = [];
for (const file of readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
  if (!file.endsWith('.d.ts')) continue;
  const path = join(dist, file);
  const text = readFileSync(path, 'utf8');
  const own = text.replaceAll(NO_BODY, 'symbol');
  if (own !== text) writeFileSync(path, own);
  if (own.includes('@ts-rest/')) leftovers.push(file);
}
if (leftovers.length > 0) {
  console.error(`declarations still name @ts-rest/core: ${leftovers.join(', ')}`);
  process.exit(1);
}
