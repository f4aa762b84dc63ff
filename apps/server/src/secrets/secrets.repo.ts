import type { Handle } from '../db/port.js';
import { bool, int, nullable, rowOf, sql, statement, text } from '../db/sql.js';
import type { StoredSecrets } from './subscription-secrets.js';

/** Rows one pass reads at a time. */
export const RESEAL_BATCH = 500;

/** A subscription's stored secrets and its id. */
export type SubscriptionSecrets = StoredSecrets & { tenantId: string; id: string };

const subscriptionsToSealStatement = statement({
  name: 'secrets_subscriptions_to_seal',
  params: { after: text, prefix: text, all: bool, take: int },
  sql: (
    p,
  ) => sql`SELECT tenant_id AS "tenantId", id, secret, previous_secret AS "previousSecret", secret_sealed AS "secretSealed",
  previous_secret_sealed AS "previousSecretSealed"
FROM webhook_subscriptions
WHERE id > ${p.after} AND (secret IS NOT NULL OR previous_secret IS NOT NULL
  OR (${p.all}::boolean AND (NOT starts_with(secret_sealed, ${p.prefix})
    OR NOT starts_with(previous_secret_sealed, ${p.prefix}))))
ORDER BY id LIMIT ${p.take}`,
  row: rowOf<SubscriptionSecrets>(),
});

/**
 * The next subscriptions after `after` (by id) holding a plaintext secret, or with `all` a secret
 * sealed under another key than `prefix` names.
 */
export function subscriptionsToSeal(
  db: Handle,
  input: { after: string; prefix: string; all: boolean },
): Promise<SubscriptionSecrets[]> {
  return db.all(subscriptionsToSealStatement, { ...input, take: RESEAL_BATCH });
}

/*
 * Writes only if the row still holds what was read: a secret rotated through the API meanwhile is
 * left as that rotation wrote it (already sealed under the current key).
 */
const resealSubscription = statement({
  name: 'secrets_reseal_subscription',
  params: {
    tenantId: text,
    id: text,
    secret: nullable(text),
    previousSecret: nullable(text),
    secretSealed: nullable(text),
    previousSecretSealed: nullable(text),
    newSecretSealed: text,
    newPreviousSecretSealed: nullable(text),
  },
  sql: (p) => sql`UPDATE webhook_subscriptions SET secret_sealed = ${p.newSecretSealed},
  previous_secret_sealed = ${p.newPreviousSecretSealed}, secret = NULL, previous_secret = NULL
WHERE tenant_id = ${p.tenantId} AND id = ${p.id} AND secret IS NOT DISTINCT FROM ${p.secret}::text
  AND previous_secret IS NOT DISTINCT FROM ${p.previousSecret}::text
  AND secret_sealed IS NOT DISTINCT FROM ${p.secretSealed}::text
  AND previous_secret_sealed IS NOT DISTINCT FROM ${p.previousSecretSealed}::text`,
});

/** Replaces a subscription's stored secrets by `next` unless they changed since `read`; true when written. */
export async function resealSubscriptionSecrets(
  db: Handle,
  read: SubscriptionSecrets,
  next: { secretSealed: string; previousSecretSealed: string | null },
): Promise<boolean> {
  const written = await db.run(resealSubscription, {
    ...read,
    newSecretSealed: next.secretSealed,
    newPreviousSecretSealed: next.previousSecretSealed,
  });
  return written === 1;
}

/** A kept idempotent response that may carry a secret. */
export interface KeptSecret {
  tenantId: string;
  key: string;
  body: string;
  sealedSecret: string | null;
}

const keptToSealStatement = statement({
  name: 'secrets_kept_to_seal',
  params: { afterTenant: text, afterKey: text, prefix: text, all: bool, legacy: bool, take: int },
  sql: (p) => sql`SELECT tenant_id AS "tenantId", key, body, sealed_secret AS "sealedSecret"
FROM idempotency_keys
WHERE (tenant_id, key) > (${p.afterTenant}, ${p.afterKey})
  AND ((${p.all}::boolean AND sealed_secret IS NOT NULL AND NOT starts_with(sealed_secret, ${p.prefix}))
    OR (${p.legacy}::boolean AND sealed_secret IS NULL AND strpos(body, '"signingSecret":"') > 0))
ORDER BY tenant_id, key LIMIT ${p.take}`,
  row: rowOf<KeptSecret>(),
});

/**
 * The next kept responses after (`afterTenant`, `afterKey`): with `all`, those whose sealed secret
 * is under another key than `prefix` names; with `legacy`, those kept before sealing whose body
 * may hold a readable secret (expired ones too: they stay in the table until swept).
 */
export function keptToSeal(
  db: Handle,
  input: { afterTenant: string; afterKey: string; prefix: string; all: boolean; legacy: boolean },
): Promise<KeptSecret[]> {
  return db.all(keptToSealStatement, { ...input, take: RESEAL_BATCH });
}

const resealKept = statement({
  name: 'secrets_reseal_kept',
  params: { tenantId: text, key: text, body: text, newBody: text, newSealedSecret: text },
  sql: (p) => sql`UPDATE idempotency_keys SET body = ${p.newBody}, sealed_secret = ${p.newSealedSecret}
WHERE tenant_id = ${p.tenantId} AND key = ${p.key} AND body = ${p.body}`,
});

/** Replaces a kept response's body and sealed secret unless it changed since `read`; true when written. */
export async function resealKeptResponse(
  db: Handle,
  read: KeptSecret,
  next: { body: string; sealedSecret: string },
): Promise<boolean> {
  const written = await db.run(resealKept, {
    tenantId: read.tenantId,
    key: read.key,
    body: read.body,
    newBody: next.body,
    newSealedSecret: next.sealedSecret,
  });
  return written === 1;
}
