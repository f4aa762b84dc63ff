// Notes of scenario 4: webhook delivery by ours alone, and its large backlog.
import {
  atLeast,
  finite,
  HISTORY,
  has,
  measuredAt,
  NOT_MEASURED,
  num,
  over,
  paragraphs,
  pct,
  ratio,
  spread,
  verdict,
} from './format.js';
import type { BacklogInput, NotesInput, WebhooksInput } from './input.js';

/** The latency paragraph: what is measured and this run's p50 and p99. */
function latency(w: WebhooksInput): string {
  const figures = has(w.p50)
    ? `In this run, at ${finite(w.latencyRate) ? num(w.latencyRate) : 'a low'} events/s: p50 ${spread(w.p50, 1)} ms, p99 ${spread(w.p99, 1)} ms (target p50 under 20 ms: ${verdict(w.p50.median < 20)}).`
    : `Commit-to-receipt latency was ${NOT_MEASURED}.`;
  return `**Latency.** An idle dispatcher wakes on the \`NOTIFY\` sent in the outbox
transaction (LISTEN on a dedicated connection; the poll stays as a 1 s fallback), so p50 is one
statement that leases the new events and reads what their deliveries send, then the send (the
attempts are written once the first exchange ends: [0250](decisions/0250-an-idle-dispatcher-sends-before-it-writes-the-attempts.md)),
instead of half the old 200 ms poll interval. It is measured after the
dispatcher has delivered one event (on a loaded machine a process can take seconds to start, which
is not delivery latency) and then a second of events at the measured rate (each pooled
connection's first runs of the claim and hand-over parse and plan them, which made the p99 of a
fresh process). ${figures}`;
}

/** The rate paragraph: one dispatcher against undici and what its CPU per delivery allows. */
function rate(w: WebhooksInput, cpus: number): string | undefined {
  if (!has(w.one) || !has(w.ratioOne)) return `**Rate.** One dispatcher's rate was ${NOT_MEASURED}.`;
  const head = `**Rate.** One dispatcher delivered ${spread(w.one)} deliveries/s, ${ratio(w.ratioOne)} × plain undici POSTs (${spread(w.undici)} a second)${has(w.transactionsOne) ? `, with ${ratio(w.transactionsOne)} transactions per delivery` : ''}.${w.peers ? '' : ` Target ≥ 0.5 × undici: ${verdict(w.ratioOne.median >= 0.5)}, ${atLeast(w.ratioOne, 0.5)}.`}`;
  const c = w.cpuOne;
  if (!has(c?.dispatcher) || !has(c?.postgres) || !has(c?.receiver)) return head;
  const total = c.dispatcher.median + c.postgres.median + c.receiver.median;
  const cap = (cpus * 1e6) / total;
  const half = has(w.undici) ? w.undici.median / 2 : undefined;
  const budget = finite(half) && half > 0 ? (cpus * 1e6) / half : undefined;
  const reach = finite(budget)
    ? ` Half of undici's rate would need a whole delivery, PostgreSQL included, in under about ${num(budget)} µs of CPU: ${total > budget ? "out of reach of a design that writes each attempt's outcome durably before it counts, on shared cores" : 'within what a delivery costs here'}.`
    : '';
  return `${head} The CPU per delivery says why the ratio stays where it is: ${num(c.dispatcher.median)} µs of the dispatcher's, ${num(c.postgres.median)} µs of PostgreSQL's and ${num(c.receiver.median)} µs of the receiver's (medians), so ${cpus} cores doing nothing else would deliver at most about ${num(cap)} a second.${reach} PostgreSQL's share is three row versions per delivery (fan-out, lease and outcome) with their index entries and WAL; the dispatcher's is mostly the loopback \`writev\` of each POST (the kernel does the receiver's TCP work on the sender's time), collections, reading claims and writing array parameters, and HMAC (the profiles are in ${HISTORY}). Delivery scales out with dispatchers on cores of their own. Not done: acknowledging before recording, which the at-least-once guarantee rules out.`;
}

/** What the dispatcher does per delivery, as built (its measurements are in the history). */
const design = `**How a dispatcher spends its round trips.** Successes that finish while the previous write
runs are recorded by one statement (group commit; each attempt still counts only once its row is
written), and the next claim rides in that statement; a claim answers with the subscriptions and
events it leased and loads only the columns a send needs; fan-out is two statements on the driver,
beside the claims; HMAC keys are derived once per secret. A dispatcher leases up to three times as many
attempts ahead as it has slots, claims once there is room for twice its slots (each claim pays the
fair claim's fixed cost once: [0248](decisions/0248-a-dispatcher-claims-ahead-in-batches-of-twice-its-slots.md)),
and sends the next the moment a slot frees; the shares count attempts waiting or being sent, so the
next claims do not wait for commits. A recorded attempt's queue row is found where its claim left
it ([0247](decisions/0247-queue-rows-are-found-where-their-claim-left-them.md)). Its bookkeeping commits with
\`synchronous_commit = off\` ([0229](decisions/0229-the-dispatchers-bookkeeping-commits-without-waiting-for-the-flush.md)):
a PostgreSQL crash forgets the last bookkeeping and the attempts are sent again. The profile and the
same-run comparison behind each of these changes are in ${HISTORY}.`;

/** Where in the drain (fraction delivered) RSS first came near its peak, and whether it stayed near it. */
function peakAt(b: BacklogInput): { at: number; stayed: boolean } | undefined {
  if (!finite(b.rssMax) || !finite(b.events) || b.events === 0 || !b.samples?.length) return undefined;
  const max = b.rssMax;
  const index = b.samples.findIndex((s) => s.rss >= max * 0.99);
  const first = b.samples[index];
  if (!first) return undefined;
  const stayed = b.samples.slice(index).every((s) => s.rss >= max * 0.95);
  return { at: first.delivered / b.events, stayed };
}

/** The large backlog against undici, and the shape of its RSS over the drain. */
function backlog(w: WebhooksInput): string {
  const b = w.backlog;
  if (!b || !finite(b.rate)) return `**The large backlog.** The large backlog was ${NOT_MEASURED}.`;
  const vsUndici = over(b.rate, w.undici?.median);
  const rate = finite(vsUndici) ? ` It drained at ${num(vsUndici, 2)} × this run's undici median.` : '';
  const peak = peakAt(b);
  const shape = !peak
    ? ''
    : peak.at < 0.5 && peak.stayed
      ? ` Its dispatcher's RSS came within 1 % of its peak at ${pct(peak.at)} of the drain and stayed within 5 % of it for the rest: growth that stops is the heap reaching its working size rather than a leak${finite(b.maxDeviation) && b.maxDeviation > 0.1 ? ', but the target counts it' : ''}.`
      : ` Its dispatcher's RSS came within 1 % of its peak at ${pct(peak.at)} of the drain${peak.stayed ? '' : ' and did not stay there'}, so this run cannot tell its growth from a leak.`;
  return rate || shape ? `**The large backlog.**${rate}${shape}` : '';
}

/** Scenario 4: latency, rate and the large backlog of ours. */
export function webhooksNote(results: NotesInput): string {
  const w = results.webhooks;
  if (!w) return `Scenario 4 was ${NOT_MEASURED}.`;
  const cores = results.machine?.cpus;
  const cpus = finite(cores) ? cores : 2;
  return paragraphs(
    `Scenario 4 was ${measuredAt(results, 'webhooks')}.`,
    latency(w),
    rate(w, cpus),
    design,
    backlog(w),
  );
}
