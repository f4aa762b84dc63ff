// Notes of scenario 4's comparison with the job queues a team would pick.
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
  ratio,
  verdict,
} from './format.js';
import type { NotesInput, PeerInput, Spread, WebhooksInput } from './input.js';

/** The deliveries/s spread of `p` at `size` events. */
function rateAt(p: PeerInput | undefined, size: number | undefined): Spread | undefined {
  if (size === undefined) return undefined;
  return p?.bySize?.[String(size)]?.deliveriesPerS;
}

/** This run's targets against the fastest durable peer. */
function targets(w: WebhooksInput, size: number | undefined): string | undefined {
  const vs = w.vsBestPeer;
  if (!vs || !has(vs)) return undefined;
  const peer = w.peers?.[vs.peer];
  const ours = rateAt(w.peersOurs?.ours, size);
  const parts = [
    `Ours (one process)${has(ours) && finite(size) ? ` delivered ${num(ours.median)} deliveries/s at ${num(size)} events,` : ''} ${ratio(vs)} × the fastest durable peer (${peer?.label ?? vs.peer}; target 1.5: ${verdict(vs.median >= 1.5)}, ${atLeast(vs, 1.5)})`,
    has(vs.twoDispatchers)
      ? `two processes ${ratio(vs.twoDispatchers)} × (${atLeast(vs.twoDispatchers, 1.5)})`
      : undefined,
  ].filter(Boolean);
  const cpu =
    vs.pgCpu && finite(vs.pgCpu.ours) && finite(vs.pgCpu.peer)
      ? `PostgreSQL CPU per delivery ${num(vs.pgCpu.ours)} against the peer's ${num(vs.pgCpu.peer)} µs (${verdict(vs.pgCpu.ours <= vs.pgCpu.peer)})`
      : undefined;
  const l = vs.latency;
  const lat =
    l && [l.oursP50, l.oursP99, l.bestP50, l.bestP99].every(finite)
      ? `commit-to-receipt p50 ${num(l.oursP50, 1)} against the best durable peer's ${num(l.bestP50, 1)} ms (${verdict(l.oursP50 <= l.bestP50)}), p99 ${num(l.oursP99, 1)} against ${num(l.bestP99, 1)} ms (${verdict(l.oursP99 <= l.bestP99)})`
      : undefined;
  return `${[parts.join('; '), cpu, lat].filter(Boolean).join('; ')}.`;
}

/** Each peer's figures with a delivery-log row per job. */
function withLog(w: WebhooksInput, size: number | undefined): string | undefined {
  const rows = Object.values(w.peers ?? {}).filter(
    (p): p is PeerInput & { withLogRow: { oursOver: Spread } } => has(p?.withLogRow?.oursOver),
  );
  if (!rows.length) return undefined;
  const each = rows.map((p) => `${ratio(p.withLogRow.oursOver)} against ${p.label ?? 'a peer'}`).join('; ');
  const vsPeer = w.vsBestPeer ? w.peers?.[w.vsBestPeer.peer] : undefined;
  const before = rateAt(vsPeer, size);
  const after = vsPeer?.withLogRow?.deliveriesPerS;
  const cost =
    has(before) && has(after)
      ? ` One log row per job takes the fastest durable peer from ${num(before.median)} to ${num(after.median)} deliveries/s here.`
      : '';
  return `**With a delivery-log row.** Ours keeps a delivery log the API lists; the peers' jobs do not. With one log row per peer job, ours / it: ${each}.${cost}`;
}

/** Where ours stands against plain undici and what the target asks of it. */
function limit(w: WebhooksInput, size: number | undefined): string | undefined {
  const vs = w.vsBestPeer;
  const undici = rateAt(w.peers?.undici, size);
  const peer = vs ? rateAt(w.peers?.[vs.peer], size) : undefined;
  const peerOverUndici = over(peer?.median, undici?.median);
  if (!vs || !has(vs.undici)) return undefined;
  const asks = finite(peerOverUndici)
    ? ` The fastest durable peer reached ${num(peerOverUndici, 2)} × undici (medians), so the 1.5 × target asks ours for ${num(1.5 * peerOverUndici, 2)} × undici on this machine.`
    : '';
  return `**Distance to the limit.** Ours / plain undici POSTs: ${ratio(vs.undici)}.${asks} On two shared cores the remaining difference is the fan-out, the shares of each claim and the delivery log, which the peer does not do.`;
}

/** CPU per delivery of `p`, µs (medians): its sending process, PostgreSQL and the receiver. */
function cpuOf(p: PeerInput | undefined): { send: number; pg: number; receiver: number } | undefined {
  const send = p?.cpuUsPerDelivery?.median;
  const pg = p?.pgCpuUsPerDelivery?.median;
  const receiver = p?.receiverCpuUsPerDelivery?.median;
  return finite(send) && finite(pg) && finite(receiver) ? { send, pg, receiver } : undefined;
}

/**
 * What the 1.5 × target leaves a delivery of CPU on this machine: the cores each system kept busy
 * (its CPU per delivery times its deliveries/s), the most of them spread over 1.5 × the peer's rate,
 * less what plain undici's POST loop and the receiver take for the same delivery.
 */
function budget(w: WebhooksInput, size: number | undefined): string | undefined {
  const vs = w.vsBestPeer;
  if (!vs) return undefined;
  const systems = [w.peersOurs?.ours, w.peers?.[vs.peer], w.peers?.undici].map((p) => {
    const cpu = cpuOf(p);
    const rate = rateAt(p, size)?.median;
    return {
      cpu,
      rate,
      cores: cpu && finite(rate) ? ((cpu.send + cpu.pg + cpu.receiver) * rate) / 1e6 : Number.NaN,
    };
  });
  const [ours, peer, undici] = systems;
  if (
    !ours?.cpu ||
    !peer?.cpu ||
    !undici?.cpu ||
    !finite(peer.rate) ||
    !systems.every((x) => finite(x.cores))
  ) {
    return undefined;
  }
  const cores = Math.max(...systems.map((x) => x.cores));
  const perDelivery = (cores * 1e6) / (1.5 * peer.rate);
  const bare = undici.cpu;
  const floor = bare.send + bare.receiver;
  const left = perDelivery - floor;
  const beyond = (x: { send: number }) => x.send - bare.send;
  return `**What the target leaves a delivery.** CPU per delivery (sending process, PostgreSQL, receiver) times deliveries/s, medians: ours kept ${num(ours.cores, 2)} cores busy, the peer ${num(peer.cores, 2)}, plain undici ${num(undici.cores, 2)}. At the most of these, 1.5 × the peer's ${num(peer.rate)} deliveries/s leaves ${num(perDelivery)} µs of CPU a delivery. Plain undici's POST and the receiver take ${num(floor)} µs of it, which leaves ${num(left)} µs for PostgreSQL and everything a sender does besides the POST. The PostgreSQL target alone is ${num(0.67 * peer.cpu.pg)} µs (0.67 × the peer's ${num(peer.cpu.pg)}); the peer spends ${num(peer.cpu.pg)} µs in PostgreSQL and ${num(beyond(peer.cpu))} µs beyond the POST, ours ${num(ours.cpu.pg)} and ${num(beyond(ours.cpu))}.`;
}

/** Scenario 4 against the job queues: this run's verdicts, what they measure, and what is next. */
export function webhookPeersNote(results: NotesInput): string {
  const w = results.webhooks;
  if (!w?.peers || !w.vsBestPeer) return `The comparison with the job queues was ${NOT_MEASURED}.`;
  const size = w.peerRun?.sizes?.at(-1) ?? w.vsBestPeer.events;
  const rounds = w.peerRun?.rounds;
  return paragraphs(
    `**This run** (${measuredAt(results, 'webhooks')}${finite(rounds) ? `, ${rounds} round${rounds === 1 ? '' : 's'}` : ''}). ${targets(w, size) ?? ''}`,
    `**The same setup for every system.** Every system runs in the setup its documentation recommends
for throughput: one receiver process for all, worker processes started and warmed by a drain before
the timed one, the backlog committed in one transaction while the warm workers idle, and the
planner's statistics taken with it (an \`ANALYZE\` inside the backlog's transaction). Before that,
the peers' job tables kept whatever statistics autovacuum last saw, a peer's job fetch could scan
and sort every available job instead of using its index, and which system paid changed from run to
run; the runs measured so are in ${HISTORY}.`,
    `**The narrow queue.** Pending attempts wait in \`webhook_delivery_queue\`, apart from the log
([0240](decisions/0240-pending-attempts-wait-in-a-narrow-queue.md)). A success used to move the
attempt out of the log's partial pending indexes, a new heap tuple with an entry in each of its
other indexes, where graphile-worker deletes a job; how the queue compared with the single-table
build, and where ours spent its statements then, are in the history.`,
    withLog(w, size),
    limit(w, size),
    budget(w, size),
    `**What the profile shows is left.** A \`pg_stat_statements\` profile of one drain
([0247](decisions/0247-queue-rows-are-found-where-their-claim-left-them.md)) puts ours at about four
times the peer's buffers and three times its WAL records per delivery: the fan-out (an event becomes
a log row and a queue row, six index entries, a step the peer's job does not have) and the fair
claim's fixed cost (the per-tenant and per-subscription skip-scans, about two thirds of the record
and claim statement), against one index range and a delete for the peer.`,
  );
}
