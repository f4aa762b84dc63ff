import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { borderCrossings, productionSources } from './test/module-borders.js';

describe('module borders', () => {
  it("reads each module's repo from that module only, and no test helper", async () => {
    const sources = await productionSources(fileURLToPath(new URL('.', import.meta.url)));
    expect(sources.size).toBeGreaterThan(100);
    expect(borderCrossings(sources)).toEqual([]);
  });

  it('names a crossing and a test helper imported, type-only and dynamic imports included, and lets a module use its own repo', () => {
    const files = new Map([
      ['modules/audiences/audiences.service.ts', "import { findPerson } from '../persons/persons.repo.js';"],
      ['modules/messages/state.ts', "import type { AudienceRow } from '../audiences/audiences.repo.js';"],
      ['cli/seed.ts', "const repo = await import('../modules/accounts/accounts.repo.js');"],
      ['modules/assets/content/content.service.ts', "import * as repo from '../assets.repo.js';"],
      ['delivery/fan-out.ts', "import { queueAttempts } from './attempts.repo.js';"],
      ['internals.ts', "export { listPagesFirstStatement } from './modules/pages/pages.repo.js';"],
      ['delivery/dispatcher.ts', "import { startReceiver } from '../test/webhook-receiver.js';"],
    ]);
    expect(borderCrossings(files)).toEqual([
      'cli/seed.ts -> modules/accounts/accounts.repo.ts',
      'delivery/dispatcher.ts -> test/webhook-receiver.ts (a test helper)',
      'modules/audiences/audiences.service.ts -> modules/persons/persons.repo.ts',
      'modules/messages/state.ts -> modules/audiences/audiences.repo.ts',
    ]);
  });
});
