import { expect } from 'vitest';
import { type AppHost, addressOf, type Deployment, type Node } from './deployment.js';

/** Waits until the node other than `old` leads. */
export async function newPrimary(d: Deployment, old: Node): Promise<Node> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const now = await d.primary();
    if (now && now !== old) return now;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `no new primary within 120 s\n${d.output('pg1').slice(-3000)}\n${d.output('pg2').slice(-3000)}`,
  );
}

/** The old primary is back as the synchronous standby of the new one. */
export async function rejoined(d: Deployment, old: Node): Promise<void> {
  const members = await d.waitForCluster(2, 180_000);
  expect(members.find((m) => m.name === old)?.role).toBe('sync_standby');
}

/** The node that leads now; throws when none does. */
export async function currentPrimary(d: Deployment): Promise<Node> {
  const primary = await d.primary();
  if (!primary) throw new Error('no primary');
  return primary;
}

/** `db_reads_total` of both API processes, by `target`. */
export async function readsByTarget(d: Deployment): Promise<Record<string, number>> {
  const totalsByTarget: Record<string, number> = {};
  for (const host of ['api1', 'api2'] as const) {
    const text = await (await fetch(`http://${addressOf(d.vars, host)}:9100/metrics`)).text();
    for (const match of text.matchAll(/^db_reads_total\{target="(\w+)"[^}]*\} (\d+)$/gm)) {
      totalsByTarget[match[1] as string] = (totalsByTarget[match[1] as string] ?? 0) + Number(match[2]);
    }
  }
  return totalsByTarget;
}

/** The status `/readyz` of `host` answers, 0 when it does not answer within 10 s. */
export async function readyz(d: Deployment, host: AppHost): Promise<number> {
  const res = await fetch(`${d.appUrl(host)}/readyz`, { signal: AbortSignal.timeout(10_000) }).catch(
    () => undefined,
  );
  await res?.arrayBuffer();
  return res?.status ?? 0;
}

/** HAProxy's view of an API server (`UP`, `DOWN`, …), from its stats CSV. */
export async function haproxyStatus(d: Deployment, server: AppHost): Promise<string | undefined> {
  const res = await fetch(`http://${d.vars.HA_LB}:7000/;csv`);
  const line = (await res.text()).split('\n').find((l) => l.startsWith(`api,${server},`));
  return line?.split(',')[17];
}
