import { parseArgs } from 'node:util';
import { type Config, ConfigError, loadConfig } from '../config.js';
import { DataDirLockedError } from '../db/data-dir-lock.js';
import { NotMigratedError } from '../db/migrate.js';
import { EncryptionKeysError } from '../secrets/secret-box.js';
import { startTracing, type Tracing } from '../tracing/index.js';
import { commandMigrate, commandSeed, commandSeedAccounts } from './admin.js';
import { commandDispatch } from './dispatch.js';
import { commandKeys, KEYS_USAGE } from './keys.js';
import { commandSecrets, SECRETS_USAGE } from './secrets.js';
import { commandServe } from './serve.js';
import type { CliIo } from './types.js';

export type { CliIo } from './types.js';

/** Upper bound of `seed --accounts`: a typo should not fill the disk. */
const MAX_SEED_ACCOUNTS = 10_000_000;

const USAGE = `Usage: customer-api <command>

Commands:
  start                 migrate, create demo data and a key on the first run, then serve
  serve                 migrate and serve (no demo data)
  migrate               apply database migrations and exit
  dispatch              deliver webhooks only (several may share one PostgreSQL); stop with SIGTERM
  seed [--tenant name]  add demo pages, audiences, versions and messages to a tenant (default: demo)
  seed --accounts <n> [--tenant name]
                        add n accounts instead (batched, with a progress bar), for large data
${KEYS_USAGE}
${SECRETS_USAGE}

Configuration comes from environment variables (PORT, HOST, DATABASE_URL, DATA_DIR, ...).`;

const processIo: CliIo = {
  out: (text) => {
    process.stdout.write(text);
  },
  err: (text) => {
    process.stderr.write(text);
  },
  errStream: process.stderr,
};

/** Runs one CLI command; returns the process exit code. */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  const [command, ...rest] = argv;
  const fail = (err: unknown) => failWith(io, err);
  let config: Config;
  try {
    config = loadConfig(io.env);
  } catch (err) {
    return fail(err);
  }
  try {
    switch (command) {
      case 'start':
      case 'serve':
        return await traced(io, 'customer-api', (tracing) =>
          commandServe(config, io, { demo: command === 'start', tracing }),
        );
      case 'migrate':
        return await commandMigrate(config, io);
      case 'dispatch':
        return await traced(io, 'customer-api-dispatch', () => commandDispatch(config));
      case 'seed':
        return await seed(config, io, rest);
      case 'keys':
        return await commandKeys(config, io, rest);
      case 'secrets':
        return await commandSecrets(config, io, rest);
      case undefined:
      case 'help':
      case '--help':
        io.out(`${USAGE}\n`);
        return command === undefined ? 1 : 0;
      default:
        io.err(`Unknown command "${command}".\n\n${USAGE}\n`);
        return 1;
    }
  } catch (err) {
    return fail(err);
  }
}

/** Runs a long-lived command with tracing when `OTEL_*` turns it on; flushes its spans at the end. */
async function traced(
  io: CliIo,
  serviceName: string,
  run: (tracing: Tracing | undefined) => Promise<number>,
): Promise<number> {
  const tracing = await startTracing({ env: io.env ?? process.env, serviceName });
  try {
    return await run(tracing);
  } finally {
    await tracing?.shutdown();
  }
}

async function seed(config: Config, io: CliIo, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { tenant: { type: 'string', default: 'demo' }, accounts: { type: 'string' } },
  });
  if (values.accounts === undefined) return commandSeed(config, io, values.tenant);
  const accounts = Number(values.accounts);
  if (!Number.isSafeInteger(accounts) || accounts < 1 || accounts > MAX_SEED_ACCOUNTS) {
    io.err(`--accounts takes a whole number from 1 to ${MAX_SEED_ACCOUNTS} (got "${values.accounts}")\n`);
    return 1;
  }
  return commandSeedAccounts(config, io, values.tenant, accounts);
}

function failWith(io: CliIo, err: unknown): number {
  if (
    err instanceof ConfigError ||
    err instanceof DataDirLockedError ||
    err instanceof NotMigratedError ||
    err instanceof EncryptionKeysError
  ) {
    io.err(`${err.message}\n`);
  } else if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) {
    io.err(`${err.message}\n\n${USAGE}\n`);
  } else {
    io.err(`customer-api failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  }
  return 1;
}
