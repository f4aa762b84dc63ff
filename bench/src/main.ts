#!/usr/bin/env node
// pnpm bench [--quick | --smoke] [--only=overhead,scale,...] [--write] [--render]
// Runs every scenario in one go on this machine and writes docs/benchmarks.md (a full
// run, or --write) or bench/results/quick.md (--quick). --smoke (CI's Node 24 pass) runs every
// scenario at the smallest sizes that still produce each figure, writes bench/results/smoke.md,
// never docs/, and exits non-zero when a scenario throws or leaves a figure empty (NaN, no
// samples); its figures are not compared with the targets. Needs the built packages
// (pnpm build) and PostgreSQL at 127.0.0.1:5432 (BENCH_PG_URL); uses databases named bench*.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { BenchContext, SharedContext } from './context.js';
import { ensureDatabase, tenantKey } from './lib/db.js';
import { redisAnswers, startOurs } from './lib/ours.js';
import {
  MCP_MAIN,
  messageOf,
  node20,
  node24,
  nodeVersion,
  ROOT,
  rssMiB,
  SERVER_MAIN,
  stopAll,
} from './lib/proc.js';
import { emptyFigures, emptyReportLines } from './lib/smoke-check.js';
import { machine, renderReport } from './report.js';
import type { BenchResults, ScenarioEntries, ScenarioName, ScenarioResults, Timed } from './results.js';
import { seedPages } from './scenarios/overhead.js';
import { ALL, SELF_CONTAINED, type Shared, STEPS } from './steps.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    smoke: { type: 'boolean', default: false },
    render: { type: 'boolean', default: false },
    only: { type: 'string' },
    write: { type: 'boolean', default: false },
  },
});
const only = new Set<string>(values.only ? values.only.split(',') : ALL);
const smoke = values.smoke;
// A smoke run is a quick run made smaller still: every `ctx.quick` size applies, and the
// scenarios shrink further where they read `ctx.smoke`.
const quick = values.quick || smoke;
// A run of some isolation attacks only (BENCH_ISOLATION_ATTACKS, while working on one) is no
// report: its figures go to bench/results/partial.*, and the last full report stays as it was.
const partial = only.has('isolation') && Boolean(process.env.BENCH_ISOLATION_ATTACKS);
const mode = smoke ? 'smoke' : quick ? 'quick' : partial ? 'partial' : 'full';
const startedAt = Date.now();

/** Raw figures: a full run's beside the report it produced (committed), others' in bench/results. */
const resultsFile = (runMode: string) =>
  runMode === 'full' ? `${ROOT}docs/benchmarks.json` : `${ROOT}bench/results/${runMode}.json`;

/** Writes the report of `results` (docs/benchmarks.md and its charts, or bench/results/<mode>.md). */
function write(results: BenchResults): string {
  const report = renderReport(results);
  // A smoke or partial run's figures never reach docs/, --write or not.
  const toDocs = mode === 'full' || (mode === 'quick' && values.write);
  const target = toDocs ? `${ROOT}docs/benchmarks.md` : `${ROOT}bench/results/${mode}.md`;
  writeFileSync(target, report.markdown);
  if (toDocs)
    for (const [file, svg] of Object.entries(report.charts)) writeFileSync(`${ROOT}docs/${file}`, svg);
  process.stdout.write(
    // A partial run's results hold the last full run's duration; it says its own.
    `${report.markdown}\nWritten to ${target.replace(ROOT, '')} (${(mode === 'partial' ? (Date.now() - startedAt) / 1000 : results.seconds).toFixed(0)} s run).\n`,
  );
  return report.markdown;
}

if (values.render) {
  // Re-renders the report of the last full run (e.g. after changing src/notes/ and `pnpm build`), measuring nothing.
  write(JSON.parse(readFileSync(resultsFile(mode), 'utf8')) as BenchResults);
  process.exit(0);
}

for (const built of [SERVER_MAIN, MCP_MAIN, `${ROOT}packages/client/dist/index.js`]) {
  if (!existsSync(built)) {
    process.stderr.write(`${built.replace(ROOT, '')} is missing: run \`pnpm build\` first.\n`);
    process.exit(1);
  }
}

const ctx: BenchContext = {
  quick,
  smoke,
  reps: quick ? 1 : 3,
  loadSeconds: smoke ? 0.3 : quick ? 0.6 : 8,
  warmupSeconds: smoke ? 0.2 : quick ? 0.3 : 3,
  // A smoke run skips Node 20 even where one is installed: scenario 1's Node 24 rows are its check.
  nodes: { n24: node24(), n20: smoke ? undefined : node20({ optional: quick }) },
  progress: (line: string) =>
    process.stderr.write(`[${((Date.now() - startedAt) / 1000).toFixed(0).padStart(4)} s] ${line}\n`),
};
const versions = {
  node24: nodeVersion(ctx.nodes.n24),
  node20: ctx.nodes.n20 ? nodeVersion(ctx.nodes.n20) : smoke ? 'skipped (smoke run)' : 'none found (skipped)',
};
// A smoke run needs only PostgreSQL: where Redis does not answer (a CI machine may have none),
// our servers keep their rate-limit counts in memory instead of failing to start.
if (smoke && !(await redisAnswers())) {
  ctx.progress('Redis does not answer: servers rate-limit in memory for this smoke run');
  process.env.BENCH_REDIS_URL = '';
}

const stopOnSignal = () => stopAll().finally(() => process.exit(130));
process.once('SIGINT', stopOnSignal);
process.once('SIGTERM', stopOnSignal);

/** What a smoke run found wrong: scenarios that threw or left a figure empty. */
const smokeFailures: string[] = [];
/** The run's results; their `seconds` come once the run is over. */
const results: Omit<BenchResults, 'seconds'> & { seconds?: number } = {
  quick,
  smoke,
  startedAt: new Date(startedAt).toISOString(),
  machine: machine(),
  versions,
};
/** Runs scenario `name` and keeps its result, with the seconds it took. */
async function runStep<K extends ScenarioName>(name: K, shared: Shared | undefined): Promise<void> {
  ctx.progress(`scenario ${name}`);
  const t0 = Date.now();
  let result: ScenarioResults[K];
  try {
    result = await STEPS[name](ctx, shared);
  } catch (error) {
    // A smoke run goes on to the other scenarios, so that one run names every failure.
    if (!smoke) throw error;
    smokeFailures.push(`${name} threw: ${(error instanceof Error && error.stack) || error}`);
    ctx.progress(`scenario ${name} threw: ${messageOf(error)}`);
    return;
  }
  const timed: Timed<ScenarioResults[K]> = Object.assign(result, { seconds: (Date.now() - t0) / 1000 });
  const entries: ScenarioEntries = results;
  entries[name] = timed;
}

try {
  // A full run starts from an empty database, so that the 1M-row load is part of it; a smoke run
  // from an empty database of its own, as on a fresh clone (its scale tenants load in a second).
  // A run of self-contained scenarios alone leaves the shared database (and its 1M rows) alone.
  let shared: Shared | undefined;
  if (ALL.some((name) => only.has(name) && !SELF_CONTAINED.has(name))) {
    ctx.progress('preparing the bench database');
    const databaseUrl = smoke
      ? await ensureDatabase('bench_smoke', { fresh: true })
      : await ensureDatabase('bench', { fresh: !quick });
    const sharedCtx: SharedContext = { ...ctx, databaseUrl, pages: tenantKey(databaseUrl, 'bench-pages') };
    const ours24 = await startOurs({ name: 'ours-24', bin: ctx.nodes.n24, databaseUrl });
    shared = { ctx: sharedCtx, ours24 };
    await seedPages(ours24, sharedCtx.pages.apiKey);
    results.rssStart = rssMiB(ours24.pid);
  }
  for (const name of ALL) {
    if (!only.has(name)) continue;
    await runStep(name, shared);
  }
} finally {
  await stopAll();
}
const finished: BenchResults = { ...results, seconds: (Date.now() - startedAt) / 1000 };
mkdirSync(`${ROOT}bench/results`, { recursive: true });
// A full run of some scenarios (--only) replaces just those in the last full report, which then
// says which scenarios were measured again and when.
const rerun = ALL.filter((name) => only.has(name));
const merged: BenchResults =
  values.only && !quick && existsSync(resultsFile('full'))
    ? (() => {
        const last = JSON.parse(readFileSync(resultsFile('full'), 'utf8')) as BenchResults;
        return {
          ...last,
          ...Object.fromEntries(rerun.map((name) => [name, finished[name]])),
          versions: finished.versions,
          remeasured: {
            ...last.remeasured,
            ...Object.fromEntries(
              rerun.map((n) => [n, `${finished.startedAt} (load average ${finished.machine.loadAtStart})`]),
            ),
          },
        };
      })()
    : finished;
writeFileSync(resultsFile(mode), `${JSON.stringify(merged, null, 2)}\n`);
const markdown = write(merged);
if (smoke) {
  for (const name of rerun) if (finished[name]) smokeFailures.push(...emptyFigures(name, finished[name]));
  smokeFailures.push(...emptyReportLines(markdown));
  if (smokeFailures.length) {
    process.stderr.write(`\nSmoke run failed:\n${smokeFailures.map((f) => `- ${f}`).join('\n')}\n`);
    process.exit(1);
  }
  process.stderr.write(
    `\nSmoke run passed: every scenario (${rerun.join(', ')}) produced its figures in ${finished.seconds.toFixed(0)} s.\n`,
  );
}
