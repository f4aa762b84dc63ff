import type { Handle } from '../db/port.js';
import { ensureSetting, readSetting } from '../db/settings.js';
import { reseal, sealResponse } from './kept-responses.js';
import { SealedSecretError, type SecretBox } from './secret-box.js';
import * as repo from './secrets.repo.js';
import { openCurrentSecret, openPreviousSecret } from './subscription-secrets.js';

/** Marks that kept responses from before sealing were sealed (that scan runs once). */
const LEGACY_KEPT_SETTING = 'kept_secrets_sealed';

/** What a pass over the stored secrets did. */
export interface ResealReport {
  /** The id of the key everything was sealed under. */
  keyId: string;
  /** Subscriptions whose secrets were (re)sealed. */
  subscriptions: number;
  /** Kept idempotent responses whose secret was (re)sealed. */
  keptResponses: number;
  /** Rows changed by someone else meanwhile (left as they are; a rerun takes them if needed). */
  skipped: number;
  /** Why values could not be opened (a key removed too early, or altered data); empty when none. */
  unreadable: string[];
}

/**
 * At start: seals every secret still stored in plaintext (rows written before sealing, or by an
 * older process meanwhile) under the current key, and once, kept responses from before sealing.
 */
export async function sealPlaintextSecrets(db: Handle, box: SecretBox): Promise<ResealReport> {
  const legacy = (await readSetting(db, LEGACY_KEPT_SETTING)) === undefined;
  const report = await pass(db, box, { all: false, legacy });
  if (legacy && report.unreadable.length === 0) await ensureSetting(db, LEGACY_KEPT_SETTING, () => 'v1');
  return report;
}

/**
 * `customer-api secrets rotate`: every stored secret (plaintext, or sealed under an older key)
 * sealed under the current key. Idempotent: a second run finds nothing to do.
 */
export async function resealAllSecrets(db: Handle, box: SecretBox): Promise<ResealReport> {
  const report = await pass(db, box, { all: true, legacy: true });
  if (report.unreadable.length === 0) await ensureSetting(db, LEGACY_KEPT_SETTING, () => 'v1');
  return report;
}

async function pass(
  db: Handle,
  box: SecretBox,
  scope: { all: boolean; legacy: boolean },
): Promise<ResealReport> {
  const report: ResealReport = {
    keyId: box.currentKeyId,
    subscriptions: 0,
    keptResponses: 0,
    skipped: 0,
    unreadable: [],
  };
  const prefix = box.currentPrefix;
  for (let after = ''; ; ) {
    const rows = await repo.subscriptionsToSeal(db, { after, prefix, all: scope.all });
    for (const row of rows) {
      const next = attempt(report, () => ({
        secretSealed: box.seal(openCurrentSecret(box, row)),
        previousSecretSealed: sealedOrNull(box, openPreviousSecret(box, row)),
      }));
      if (next) count(report, 'subscriptions', await repo.resealSubscriptionSecrets(db, row, next));
    }
    const last = rows.at(-1);
    if (!last || rows.length < repo.RESEAL_BATCH) break;
    after = last.id;
  }
  for (let afterTenant = '', afterKey = ''; ; ) {
    const rows = await repo.keptToSeal(db, { afterTenant, afterKey, prefix, ...scope });
    for (const row of rows) {
      const next = attempt(report, () => resealedKept(box, row));
      if (next) count(report, 'keptResponses', await repo.resealKeptResponse(db, row, next));
    }
    const last = rows.at(-1);
    if (!last || rows.length < repo.RESEAL_BATCH) break;
    afterTenant = last.tenantId;
    afterKey = last.key;
  }
  return report;
}

/** A kept response's next form; undefined when its body holds no top-level secret after all. */
function resealedKept(
  box: SecretBox,
  row: repo.KeptSecret,
): { body: string; sealedSecret: string } | undefined {
  if (row.sealedSecret !== null) {
    const sealedSecret = box.seal(box.open(row.sealedSecret));
    return { body: reseal(row.body, row.sealedSecret, sealedSecret), sealedSecret };
  }
  const kept = sealResponse(box, JSON.parse(row.body) as unknown, row.body);
  return kept.sealedSecret === null ? undefined : { body: kept.body, sealedSecret: kept.sealedSecret };
}

function sealedOrNull(box: SecretBox, plain: string | undefined): string | null {
  return plain === undefined ? null : box.seal(plain);
}

function attempt<T>(report: ResealReport, make: () => T): T | undefined {
  try {
    return make();
  } catch (err) {
    if (!(err instanceof SealedSecretError)) throw err;
    if (!report.unreadable.includes(err.message)) report.unreadable.push(err.message);
    return undefined;
  }
}

function count(report: ResealReport, field: 'subscriptions' | 'keptResponses', written: boolean): void {
  if (written) report[field] += 1;
  else report.skipped += 1;
}
