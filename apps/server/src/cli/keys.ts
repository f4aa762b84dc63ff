import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { systemClock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import {
  createApiKey,
  ensureTenant,
  listApiKeys,
  revokeApiKey,
  type Scope,
} from '../tenants/tenants.service.js';
import { withDatabase } from './admin.js';
import type { CliIo } from './types.js';

/** Usage lines of the `keys` commands (part of the CLI's help). */
export const KEYS_USAGE = `  keys create --tenant <name> [--scopes read,write] [--multi-tenant] [--expires-in <days>]
                        create an API key; prints {"tenantId","keyId","apiKey","scopes","expiresAt"}
  keys list --tenant <name>
                        one JSON line per key: keyId, prefix, scopes, createdAt, lastUsedAt,
                        expiresAt, revokedAt (never the key)
  keys revoke <keyId>   refuse the key from now on (every process within AUTH_CACHE_TTL_S)`;

/** Longest `--expires-in`: ten years. */
const MAX_EXPIRES_IN_DAYS = 3650;
const DAY_MS = 86_400_000;

/** `keys <create|list|revoke> …`; returns the exit code. */
export async function commandKeys(config: Config, io: CliIo, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create':
      return keysCreate(config, io, rest);
    case 'list':
      return keysList(config, io, rest);
    case 'revoke':
      return keysRevoke(config, io, rest);
    default:
      io.err(`Unknown keys command "${sub ?? ''}"; use:\n${KEYS_USAGE}\n`);
      return 1;
  }
}

async function keysCreate(config: Config, io: CliIo, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      tenant: { type: 'string' },
      scopes: { type: 'string', default: 'read,write' },
      'multi-tenant': { type: 'boolean', default: false },
      'expires-in': { type: 'string' },
    },
  });
  const tenant = values.tenant?.trim();
  if (!tenant) return usageError(io, 'keys create needs --tenant <name>');
  const scopes = values.scopes
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (scopes.length === 0 || scopes.some((s) => s !== 'read' && s !== 'write')) {
    return usageError(io, `--scopes takes read and/or write, comma-separated (got "${values.scopes}")`);
  }
  const days = values['expires-in'] === undefined ? undefined : Number(values['expires-in']);
  if (days !== undefined && !(Number.isFinite(days) && days > 0 && days <= MAX_EXPIRES_IN_DAYS)) {
    return usageError(
      io,
      `--expires-in takes a number of days above 0 and at most ${MAX_EXPIRES_IN_DAYS} (got "${values['expires-in']}")`,
    );
  }
  const line = await withDatabase(config, async ({ db }) => {
    const deps = { db, clock: systemClock, ids: newId };
    const expiresAt = days === undefined ? null : new Date(deps.clock().getTime() + days * DAY_MS);
    const { tenantId } = await ensureTenant(deps, tenant);
    const unique = [...new Set(scopes as Scope[])];
    const { apiKey, keyId } = await createApiKey(deps, {
      tenantId,
      scopes: unique,
      multiTenant: values['multi-tenant'],
      expiresAt,
    });
    return { tenantId, keyId, apiKey, scopes: unique, expiresAt: expiresAt?.toISOString() ?? null };
  });
  io.out(`${JSON.stringify(line)}\n`);
  return 0;
}

async function keysList(config: Config, io: CliIo, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { tenant: { type: 'string' } } });
  const tenant = values.tenant?.trim();
  if (!tenant) return usageError(io, 'keys list needs --tenant <name>');
  const keys = await withDatabase(config, ({ db }) => listApiKeys(db, tenant));
  if (!keys) {
    io.err(`No tenant named "${tenant}".\n`);
    return 1;
  }
  for (const key of keys) io.out(`${JSON.stringify(key)}\n`);
  return 0;
}

async function keysRevoke(config: Config, io: CliIo, args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const [keyId, ...extra] = positionals;
  if (!keyId || extra.length > 0) return usageError(io, 'keys revoke takes one key id (see keys list)');
  const revoked = await withDatabase(config, ({ db }) =>
    revokeApiKey({ db, clock: systemClock, ids: newId }, keyId),
  );
  if (!revoked) {
    io.err(`No key with id "${keyId}".\n`);
    return 1;
  }
  io.out(`${JSON.stringify(revoked)}\n`);
  io.err(`Revoked; every process refuses it within AUTH_CACHE_TTL_S (${config.authCacheTtlS} s).\n`);
  return 0;
}

function usageError(io: CliIo, message: string): number {
  io.err(`${message}\n`);
  return 1;
}
