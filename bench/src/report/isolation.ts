// The report's section of scenario 7: one tenant's latency while another attacks.
import { table, verdict } from '../markdown.js';
import type { IsolationPhase, IsolationResult, IsolationRow, IsolationRun } from '../results.js';

/** B's worse p99 ratio (pages or account) during an attack against `quiet`. */
const p99Ratio = (r: IsolationPhase, quiet: IsolationPhase) =>
  Math.max(r.pages.p99 / quiet.pages.p99, r.account.p99 / quiet.account.p99);

/** One build's isolation rows: B's latency per attack against its quiet figures. */
function isolationRows(run: IsolationRun): string[][] {
  const [quiet] = run.rows;
  if (!quiet) return [];
  const cell = (r: IsolationRow, key: 'pages' | 'account') =>
    `${r[key].p50.toFixed(1)} / ${r[key].p99.toFixed(1)}${r[key].non2xx ? ` (${r[key].non2xx} non-2xx)` : ''}`;
  const ratio = (r: IsolationRow) => p99Ratio(r, r.quiet ?? quiet).toFixed(2);
  const baseline = (r: IsolationRow) => {
    const before = r.quiet ?? quiet;
    return `${before.pages.p99.toFixed(1)} / ${before.account.p99.toFixed(1)}${r.interleaved ? ' *' : ''}`;
  };
  const attacker = (r: IsolationRow) => {
    if (r.bDeliveredAfterMs !== undefined) {
      const wait = `${r.bDeliveredAfterMs >= 120_000 ? 'not within ' : ''}${(r.bDeliveredAfterMs / 1000).toFixed(1)} s`;
      return `subscriptions ${JSON.stringify(r.subscriptions)}; B's event after ${wait}`;
    }
    const extra = r.stored !== undefined ? `; ${r.stored} messages of ${r.messageKiB} KiB stored` : '';
    return `${JSON.stringify(r.attacker ?? {})}${extra}`;
  };
  return run.rows.map((r) => [
    `${run.label}: ${r.attack}`,
    cell(r, 'pages'),
    cell(r, 'account'),
    r.attack === 'quiet' ? '' : baseline(r),
    r.attack === 'quiet' ? '1' : ratio(r),
    r.rssMiB ? r.rssMiB.toFixed(0) : '',
    r.attack === 'quiet' ? '' : attacker(r),
  ]);
}

/** Section 7. */
export function isolation(iso: IsolationResult, note: string): string {
  const runs = [iso.before, iso.after].filter((run): run is IsolationRun => Boolean(run));
  const after = iso.after;
  const [quiet, ...attacks] = after.rows;
  const within = attacks.every(
    (r) => p99Ratio(r, r.quiet ?? quiet ?? r) <= 2 && r.pages.non2xx + r.account.non2xx === 0,
  );
  const webhook = attacks.find((r) => r.bDeliveredAfterMs !== undefined);
  return [
    '## 7. Isolation: one tenant cannot slow down another',
    '',
    `Tenant B sends \`GET /v0/pages?limit=20\` and \`GET /v0/accounts/{id}\`, one request every 50 ms each over four keys, for ${after.seconds} s quiet and then during each attack of tenant A (default limits: 1,000 requests a minute per key, the database share, the statement timeout; PostgreSQL, dispatcher in the server process). Attacks: searches of the trash whose text has no letters (\`%\` × 200, 8 in flight) over a trash of trashed assets inserted by SQL; the largest messages the server takes, then their history read 16 at a time; 300 subscriptions asked for to a receiver answering after 9 s plus version events, then B's own event 2 s later; idle keyless connections and trickled bodies. A shared machine's load drifts over a run by more than the margin, so each attack has a quiet baseline of its own: for the trash and history attacks (paced requests), B measures in windows alternating between A paused (its requests under way cancelled) and A attacking, four pairs of a quarter of the time each, sampling each window after its first second; for the webhook and connection attacks (state a pause would not undo), B measures quiet again for as long just before (after a few seconds for the previous attack to wind down). Figures: p50 / p99 in ms; ratio: B's worse p99 against its quiet p99 (the first quiet phase for a run that recorded no other); RSS: the server's peak during the attack.`,
    '',
    table(
      [
        'Build: attack',
        'B pages p50 / p99',
        'B account p50 / p99',
        'B quiet p99: A paused (*) or just before (pages / account)',
        'p99 ratio',
        'RSS MiB',
        'A got',
      ],
      runs.flatMap(isolationRows),
    ),
    '',
    `Targets: B's p99 within 2 × quiet and 0 non-2xx in every attack — ${verdict(within)}; B's event delivered within 5 s — ${webhook ? verdict((webhook.bDeliveredAfterMs ?? Number.NaN) <= 5000) : 'not measured (the webhook attack did not run)'}; server RSS under 1 GiB — ${verdict(after.rssMaxMiB < 1024)} (peak ${after.rssMaxMiB.toFixed(0)} MiB).`,
    '',
    note,
  ].join('\n');
}
