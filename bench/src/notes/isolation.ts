// Notes of scenario 7: one tenant's attacks against another tenant's latency.
import { finite, HISTORY, measuredAt, NOT_MEASURED, num, paragraphs, verdict } from './format.js';
import type { IsolationLatency, IsolationRow, NotesInput } from './input.js';

/** B's worse p99 ratio (pages or account) during an attack against `quiet`, as the report computes it. */
function p99Ratio(r: IsolationLatency, quiet: IsolationLatency): number {
  return Math.max(r.pages.p99 / quiet.pages.p99, r.account.p99 / quiet.account.p99);
}

/** Non-2xx answers B got in a phase. */
const non2xx = (r: IsolationLatency): number => (r.pages.non2xx ?? 0) + (r.account.non2xx ?? 0);

/** The attacks of this run with B's ratio, and the verdict of the 2 × target. */
function attacks(rows: IsolationRow[]): string {
  const quiet = rows[0];
  const measured = rows.slice(1);
  if (!quiet || !measured.length) return `B's latency under attack was ${NOT_MEASURED}.`;
  const each = measured.map((r) => {
    const x = p99Ratio(r, r.quiet ?? quiet);
    const bad = non2xx(r);
    return { attack: r.attack, x, bad, ok: Number.isFinite(x) && x <= 2 && bad === 0 };
  });
  const list = each
    .map((e) => `${e.attack} ${finite(e.x) ? num(e.x, 2) : 'n/a'}${e.bad ? ` (${num(e.bad)} non-2xx)` : ''}`)
    .join(', ');
  const missed = each.filter((e) => !e.ok).map((e) => e.attack);
  const worst = Math.max(...each.map((e) => e.x).filter(Number.isFinite));
  const within = missed.length
    ? `${verdict(false)} in ${missed.join(', ')}`
    : `${verdict(true)} in every attack (the worst ${finite(worst) ? num(worst, 2) : 'n/a'})`;
  const webhook = measured.find((r) => r.bDeliveredAfterMs !== undefined);
  const delivered =
    webhook && finite(webhook.bDeliveredAfterMs)
      ? ` B's own event arrived ${webhook.bDeliveredAfterMs < 1000 ? `${num(webhook.bDeliveredAfterMs)} ms` : `${num(webhook.bDeliveredAfterMs / 1000, 1)} s`} after it was sent while A's receivers hung (target 5 s: ${verdict(webhook.bDeliveredAfterMs <= 5000)}).`
      : " The webhook attack did not run, so B's event delivery was not measured.";
  return `B's worse p99 ratio per attack: ${list}. Target within 2 × quiet and no non-2xx: ${within}.${delivered}`;
}

/** The attacks' names as a list in words. */
function names(rows: IsolationRow[]): string {
  const all = rows.map((r) => `"${r.attack}"`);
  const last = all.pop();
  return all.length ? `${all.join(', ')} and ${last}` : (last ?? '');
}

/** Which attacks were measured against alternating windows and which against the phase before. */
function phases(rows: IsolationRow[]): string {
  const attacks = rows.slice(1);
  const alternating = names(attacks.filter((r) => r.interleaved));
  const before = names(attacks.filter((r) => !r.interleaved));
  const link =
    '(decision record [0204](decisions/0204-isolation-bench-each-attack-against-the-quiet.md), amended)';
  const a = alternating.length
    ? `measured ${alternating} against windows with A paused, alternating with the attack's ${link}`
    : '';
  const b = before.length ? `${a ? '' : 'measured '}${before} against the quiet phase just before` : '';
  return `${[a, b].filter(Boolean).join(', and ')}.`;
}

/** Scenario 7: this run's ratios, what was tried against the attacks, and the mechanisms. */
export function isolationNote(results: NotesInput): string {
  const iso = results.isolation;
  const rows = iso?.after?.rows;
  const hasBefore = Boolean(iso?.before?.rows?.length);
  const mechanisms = `Mechanisms (docs/reliability.md): a tenant holds at most \`TENANT_DB_CONCURRENCY\` pool connections at once (429 past a 1 s wait), every statement ends after \`DATABASE_STATEMENT_TIMEOUT_MS\`, a trash search without three letters or digits in a row is refused over a trash of more than 10,000, messages and history reads are bounded, a history is read in statements of about 256 KiB, and a large read streams a chunk per turn of the event loop within the tenant's bandwidth (\`TENANT_RESPONSE_BYTES_PER_S\`, one at a time, three waiting, a fifth 429), the dispatcher takes due attempts round robin across tenants with a per-tenant share of its slots and at most 16 subscriptions per tenant, and every connection has header, request and idle timeouts (connections falling due together are closed and answered about 1 ms of them per turn).${hasBefore ? ' "before" is the first release candidate (b4919b4) under the same attacks.' : ''}`;
  if (!rows?.length) return paragraphs(`Scenario 7 was ${NOT_MEASURED}.`, mechanisms);
  return paragraphs(
    `**This run** (${measuredAt(results, 'isolation')}). It ${phases(rows)} ${attacks(rows)} Single runs of the history attack spread widely on this machine, on quiet days too (${HISTORY}): one run's ratio is one sample.`,
    [
      '**What was tried against the history and connection attacks** (each with its measurements in the history):',
      "- *Refused reads.* A history read or publish that finds its tenant's line full is refused before",
      "  any statement; B's ratio did not move beyond its spread.",
      "- *Less bandwidth does not shorten B's tail.* Lowering `TENANT_RESPONSE_BYTES_PER_S` left B's p99",
      "  under attack where it was: B's tail in this attack does not follow A's bytes.",
      '- *Binary COPY, tried and dropped.* It cut the CPU of a read but left buffers that only full',
      '  collections freed, started for external memory pressure, and made the attack worse.',
      '- *Slices stay.* One statement for a whole history allocates less but kept timers from running for',
      '  far longer than statements of about 256 KiB.',
      "- *No copy of a history's JSON.* The copy started a full collection about once a second while a",
      '  tenant read its history; reading the JSON in smaller pieces brought them back and was dropped.',
      '- *Connections and round trips.* The pool is opened at start and kept (B had waited for',
      "  connections PostgreSQL was starting), and B's `GET /v0/accounts/{id}` is one prepared statement.",
      "- *Stalls of the server's own.* History reads in slices, plain digit grouping instead of",
      '  `toLocaleString` (whose first call loads ICU), and expired connections answered a few per turn.',
      "- *`--max-semi-space-size=2`* shortened the connection attack's young-generation pauses but not the",
      "  history attack's; it is not adopted.",
    ].join('\n'),
    `**What remains**, as traces of earlier runs showed it (${HISTORY}). In the history attack's windows the server's event loop stalls on young-generation collections, socket writes to PostgreSQL and to A, and A's slices, and B's tail on this virtual machine follows the scheduler. In the connection attack the pauses are young-generation collections while ten thousand new sockets are alive: every surviving socket object is copied once before it is promoted; Node's own request-timeout check builds an error for each expired connection.`,
    mechanisms,
  );
}
