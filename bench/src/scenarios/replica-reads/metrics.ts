// What scenario 9 reads from a server's metrics: the reads `db_reads_total` counted by target and
// reason, and the scenario's requests `http_requests_total` counted as answered and failed.

/** A server's counters (see {@link serverCounts}). */
export interface Counts {
  reads: Record<string, number>;
  answered: number;
  failed: number;
}

/** The operations of the load, as `http_requests_total` names them. */
const OPERATIONS = ['getPage', 'listPages'];

/**
 * A server's counters: `reads`, `db_reads_total` by `target/reason` (empty without a standby:
 * nothing is counted), and `answered` / `failed`, the scenario's requests it answered (from
 * `http_requests_total`), failed ones being those not answered 2xx.
 */
export async function serverCounts(metricsUrl: string): Promise<Counts> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const label = (labels: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(labels)?.[1];
  const counts: Counts = { reads: {}, answered: 0, failed: 0 };
  for (const [, labels = '', value] of text.matchAll(/^db_reads_total\{([^}]*)\} (\S+)$/gm)) {
    counts.reads[`${label(labels, 'target')}/${label(labels, 'reason')}`] = Number(value);
  }
  for (const [, labels = '', value] of text.matchAll(/^http_requests_total\{([^}]*)\} (\S+)$/gm)) {
    if (!OPERATIONS.includes(label(labels, 'operation') ?? '')) continue;
    counts.answered += Number(value);
    if (label(labels, 'status_class') !== '2xx') counts.failed += Number(value);
  }
  return counts;
}

/**
 * {@link serverCounts} once they stop moving: the server counts an answer once it is sent, which
 * can be just after the client has it.
 */
export async function settledCounts(metricsUrl: string): Promise<Counts> {
  let last = await serverCounts(metricsUrl);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await serverCounts(metricsUrl);
    if (now.answered === last.answered) return now;
    last = now;
  }
}

/** Counts of `after` minus `before`. */
export const delta = (after: Counts, before: Counts): Counts => ({
  reads: Object.fromEntries(Object.entries(after.reads).map(([k, n]) => [k, n - (before.reads[k] ?? 0)])),
  answered: after.answered - before.answered,
  failed: after.failed - before.failed,
});
