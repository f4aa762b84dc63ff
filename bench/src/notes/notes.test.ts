import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type Notes, type NotesInput, renderNotes } from './index.js';

const KEYS: (keyof Notes)[] = [
  'assetContent',
  'citus',
  'ingestion',
  'intro',
  'isolation',
  'mcp',
  'memory',
  'overhead',
  'replicas',
  'scale',
  'webhookPeers',
  'webhooks',
];

const committed = JSON.parse(
  readFileSync(new URL('../../../docs/benchmarks.json', import.meta.url), 'utf8'),
) as NotesInput;

/** A deep copy of `value` with every number multiplied by a factor that varies from field to field. */
function perturb(value: unknown): unknown {
  let field = 0;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'number') return v * (1.05 + 0.07 * (field++ % 5));
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value);
}

/** A deep copy of `value` with every number replaced by NaN, as a failed measurement leaves it. */
function blank(value: unknown): unknown {
  if (typeof value === 'number') return Number.NaN;
  if (Array.isArray(value)) return value.map(blank);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, blank(x)]));
  return value;
}

/** Fails on a figure that could not be formatted. */
function expectClean(notes: Notes): void {
  expect(Object.keys(notes).sort()).toEqual(KEYS);
  for (const key of KEYS) {
    expect(typeof notes[key], key).toBe('string');
    expect(notes[key].length, key).toBeGreaterThan(0);
    expect(notes[key], key).not.toMatch(/\b(NaN|undefined|null|Infinity)\b/);
    expect(notes[key], key).not.toMatch(/\[object Object\]/);
  }
}

describe('renderNotes', () => {
  it('renders every note from the committed results', () => {
    expectClean(renderNotes(committed));
  });

  it('prints the webhooks ratio and the verdict against the peer from the input', () => {
    const webhooks = committed.webhooks;
    if (!webhooks?.vsBestPeer) throw new Error('the committed results lack scenario 4');
    const before = renderNotes(committed);
    const changed = renderNotes({
      ...committed,
      webhooks: {
        ...webhooks,
        ratioOne: { min: 0.111, median: 0.123, max: 0.134 },
        vsBestPeer: { ...webhooks.vsBestPeer, min: 1.51, median: 1.62, max: 1.73 },
      },
    });
    expect(changed.webhooks).toContain('0.12 (0.11–0.13) × plain undici');
    expect(before.webhooks).not.toContain('0.12 (0.11–0.13)');
    expect(changed.webhookPeers).toContain('1.62 (1.51–1.73) ×');
    expect(changed.webhookPeers).toMatch(/target 1\.5: \*\*met\*\*, met in every round/);
    expect(before.webhookPeers).toMatch(/target 1\.5: \*\*missed\*\*/);
  });

  it('works out what the 1.5 × target leaves a delivery from the CPU and rates of the run', () => {
    const webhooks = committed.webhooks;
    const vs = webhooks?.vsBestPeer;
    const size = webhooks?.peerRun?.sizes?.at(-1);
    if (!webhooks?.peers || !vs || size === undefined)
      throw new Error('the committed results lack the peers');
    const at = (v: number) => ({ min: v, median: v, max: v });
    const system = (rate: number, send: number, pg: number, receiver: number) => ({
      label: 'a system',
      cpuUsPerDelivery: at(send),
      pgCpuUsPerDelivery: at(pg),
      receiverCpuUsPerDelivery: at(receiver),
      bySize: { [String(size)]: { deliveriesPerS: at(rate) } },
    });
    const note = renderNotes({
      ...committed,
      webhooks: {
        ...webhooks,
        // Cores kept busy: the peer 1.0, plain undici 1.0, ours 1.4.
        peers: { ...webhooks.peers, [vs.peer]: system(5000, 140, 20, 40), undici: system(10_000, 60, 0, 40) },
        peersOurs: { ours: system(4000, 200, 100, 50) },
      },
    }).webhookPeers;
    expect(note).toContain('ours kept 1.40 cores busy, the peer 1.00, plain undici 1.00');
    // 1.4 cores over 1.5 × 5,000 deliveries/s; the POST loop and the receiver take 60 + 40 µs.
    expect(note).toContain('leaves 187 µs of CPU a delivery');
    expect(note).toContain('which leaves 87 µs for PostgreSQL');
    expect(note).toContain(
      'the peer spends 20 µs in PostgreSQL and 80 µs beyond the POST, ours 100 and 140.',
    );
  });

  it('takes every section figure from the input', () => {
    const before = renderNotes(committed);
    const after = renderNotes(perturb(committed) as NotesInput);
    expectClean(after);
    const measured = KEYS.filter((k) => k !== 'intro' && k !== 'assetContent');
    for (const key of measured) expect(after[key], key).not.toBe(before[key]);
  });

  it('renders a run of one scenario, and an empty one, saying what was not measured', () => {
    const one = renderNotes({ startedAt: committed.startedAt, webhooks: committed.webhooks });
    expectClean(one);
    expect(one.overhead).toContain('not measured in this run');
    expect(one.citus).toContain('not measured in this run');
    expect(one.webhooks).toContain('plain undici');
    const none = renderNotes({});
    expectClean(none);
    for (const key of ['overhead', 'webhooks', 'isolation', 'replicas'] as const) {
      expect(none[key], key).toContain('not measured in this run');
    }
  });

  it('renders a run whose every figure is NaN without printing one', () => {
    expectClean(renderNotes(blank(committed) as NotesInput));
  });

  it('renders sections whose figures are partly missing', () => {
    const partial: NotesInput = {
      overhead: { rows: [{ id: 'ours@24' }], ratios: {} },
      webhooks: { one: { min: 1, median: 2, max: 3 }, backlog: { events: 10 } },
      isolation: { after: { rows: [] } },
      citus: { skipped: 'no Citus binaries' },
      mcp: { eras: {} },
      memory: {},
      replicas: { replica: {} },
      scale: { ratios: {} },
      ingestion: {},
    };
    expectClean(renderNotes(partial));
  });
});
