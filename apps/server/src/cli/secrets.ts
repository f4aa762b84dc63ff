import type { Config } from '../config.js';
import { openSecretBox } from '../secrets/keyring.js';
import { resealAllSecrets } from '../secrets/reseal.js';
import { withDatabase } from './admin.js';
import type { CliIo } from './types.js';

/** Usage lines of the `secrets` commands (part of the CLI's help). */
export const SECRETS_USAGE = `  secrets rotate        re-encrypt every stored webhook signing secret under the first key of
                        SECRETS_ENCRYPTION_KEYS (safe to rerun); prints {"keyId","subscriptions",
                        "keptResponses","skipped"}; afterwards older keys may be removed`;

/** `secrets rotate`; returns the exit code (1 when a value could not be opened). */
export async function commandSecrets(config: Config, io: CliIo, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'rotate' || rest.length > 0) {
    io.err(`Unknown secrets command "${args.join(' ')}"; use:\n${SECRETS_USAGE}\n`);
    return 1;
  }
  const box = openSecretBox(config);
  const report = await withDatabase(config, (database) => resealAllSecrets(database.db, box));
  const { keyId, subscriptions, keptResponses, skipped } = report;
  io.out(`${JSON.stringify({ keyId, subscriptions, keptResponses, skipped })}\n`);
  if (report.unreadable.length > 0) {
    io.err(
      `Some secrets could not be re-encrypted; keep every key until a run reports none:\n  ${report.unreadable.join('\n  ')}\n`,
    );
    return 1;
  }
  return 0;
}
