import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { productionSources } from './test/module-borders.js';
import { outerHandlesInTransactions, serverProgram } from './test/transaction-handles.js';

const src = fileURLToPath(new URL('.', import.meta.url));
const serverDir = join(src, '..');

describe("a transaction's body", () => {
  it('reaches no outer database handle anywhere in the server', async () => {
    const files = [...(await productionSources(src)).keys()].map((path) => join(src, path));
    expect(files.length).toBeGreaterThan(100);
    const program = serverProgram(serverDir, files);
    expect(outerHandlesInTransactions(program, files)).toEqual([]);
  }, 120_000);

  it('names each outer handle a body reaches (deps, a name, this, a helper, a spread) and no handle of its own', () => {
    const fixture = join(src, 'modules', 'fixture', 'fixture.service.ts');
    const text = `import type { Db, Handle, Tx } from '../../db/port.js';
import { sql, statement } from '../../db/sql.js';
const one = statement({ name: 'one', sql: () => sql\`SELECT 1\` });
interface Deps { db: Db; clock: () => Date }
declare function helper(deps: Deps, tx: Tx): Promise<void>;
declare function uses(handle: Handle): Promise<void>;
declare function narrow(deps: Pick<Deps, 'clock'>): void;
declare function whole(deps: Deps): Promise<void>;
export async function write(deps: Deps, other: Db): Promise<void> {
  const { db } = deps;
  await deps.db.transaction(async (tx) => {
    await tx.run(one, {});
    await tx.transaction(async (savepoint) => savepoint.run(one, {}));
    deps.clock();
    await deps.db.run(one, {});
    await db.first(one, {});
    await helper(deps, tx);
    await uses(other);
    narrow(deps);
    await whole({ ...deps, db: tx as unknown as Db });
    await whole({ ...deps });
  });
}
export class Store {
  readonly #db: Db;
  constructor(db: Db) { this.#db = db; }
  async save(): Promise<void> {
    await this.#db.transaction(async (tx) => { await tx.run(one, {}); await this.#db.run(one, {}); });
  }
}
`;
    const program = serverProgram(serverDir, [], new Map([[fixture, text]]));
    const at = (line: number, use: string) => `${fixture}:${line}: ${use}`;
    expect(outerHandlesInTransactions(program, [fixture])).toEqual(
      [
        at(15, 'deps.db.run'),
        at(16, 'db.first'),
        at(17, 'deps'),
        at(18, 'other'),
        at(21, 'deps'),
        at(28, 'this.#db.run'),
      ].sort(),
    );
  });
});
