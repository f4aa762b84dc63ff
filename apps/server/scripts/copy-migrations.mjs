// Copies the committed migrations next to the built migrator (dist/db/migrations), where
// `runMigrations` looks for them: the packed server carries no `src/`.
import { cpSync, rmSync } from 'node:fs';

rmSync('dist/db/migrations', { recursive: true, force: true });
cpSync('src/db/migrations', 'dist/db/migrations', {
  recursive: true,
  filter: (source) => !source.endsWith('README.md'),
});
