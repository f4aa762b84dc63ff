// Writes openapi.json from the built contract. Run through `pnpm --filter @customer-api/contract generate`.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generateOpenApi } from '../dist/index.js';

const target = fileURLToPath(new URL('../openapi.json', import.meta.url));
writeFileSync(target, `${JSON.stringify(generateOpenApi(), null, 2)}\n`);
console.log(`wrote ${target}`);
