import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../scripts/generate-routes.mjs', import.meta.url));

describe('the generated route table', () => {
  it('is what the generator writes from the current contract', async () => {
    const run = promisify(execFile)(process.execPath, [script, '--check']);
    await expect(run).resolves.toMatchObject({ stderr: '' });
  });
});
