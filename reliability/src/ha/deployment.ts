import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { SERVER_CLI, spawnTracked, type TrackedProcess, waitUntil } from '@customer-api/test-server';

const run = promisify(execFile);

/** The repository's `deploy/ha` folder: the configuration this suite runs as is. */
export const HA_DIR = resolve(import.meta.dirname, '../../../deploy/ha');

/** The hosts of deploy/ha/hosts.env. */
export type Host = 'etcd' | 'pg1' | 'pg2' | 'lb' | 'api1' | 'api2' | 'disp1' | 'redis' | 'client';
/** Hosts whose engine `deploy/ha/start-host.sh` starts. */
export type EngineHost = 'etcd' | 'pg1' | 'pg2' | 'lb' | 'redis';
/** Hosts of the server's own processes. */
export type AppHost = 'api1' | 'api2' | 'disp1';
/** The PostgreSQL nodes. */
export type Node = 'pg1' | 'pg2';

/** The variables of deploy/ha/hosts.env. */
export async function readHostsEnv(): Promise<Record<string, string>> {
  const text = await readFile(join(HA_DIR, 'hosts.env'), 'utf8');
  const vars: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match) vars[match[1] as string] = match[2] as string;
  }
  return vars;
}

/** The address of `host` in `vars`. */
export function addressOf(vars: Record<string, string>, host: Host): string {
  const address = vars[`HA_${host.toUpperCase()}`];
  if (!address) throw new Error(`deploy/ha/hosts.env has no HA_${host.toUpperCase()}`);
  return address;
}

/** Runs a command inside a host's namespace to completion; rejects on a non-zero exit. */
export async function inHost(host: Host, command: string, args: string[]): Promise<string> {
  const { stdout } = await run('ip', ['netns', 'exec', `ha-${host}`, command, ...args]);
  return stdout;
}

/** Patroni's view of one member (`GET /cluster`). */
export interface Member {
  name: Node;
  role: string;
  state: string;
  lag?: number | string;
}

/** Every process of the deployment, and the faults the scenarios inject. */
export class Deployment {
  readonly vars: Record<string, string>;
  readonly runDir: string;
  readonly #engines = new Map<EngineHost, TrackedProcess>();
  readonly #apps = new Map<AppHost, TrackedProcess>();
  readonly #faults: Array<() => Promise<void>> = [];

  private constructor(vars: Record<string, string>, runDir: string) {
    this.vars = vars;
    this.runDir = runDir;
  }

  /** Starts etcd, both Patroni nodes (pg1 first, so that it bootstraps), HAProxy and Redis. */
  static async start(): Promise<Deployment> {
    const runDir = await mkdtemp('/tmp/customer-api-ha-');
    await run('chmod', ['755', runDir]);
    const deployment = new Deployment(await readHostsEnv(), runDir);
    deployment.startEngine('etcd');
    deployment.startEngine('redis');
    deployment.startEngine('lb');
    await deployment.#waitFor('etcd answering', async () => {
      const res = await fetch(`http://${addressOf(deployment.vars, 'etcd')}:2379/health`);
      return res.ok;
    });
    deployment.startEngine('pg1');
    await deployment.waitForCluster(1, 90_000);
    deployment.startEngine('pg2');
    await deployment.waitForCluster(2, 120_000);
    return deployment;
  }

  /** `postgres://` URL of HAProxy's primary (port 5000) or replica (5001) frontend. */
  databaseUrl(frontend: 'primary' | 'replicas' = 'primary'): string {
    const port = frontend === 'primary' ? 5000 : 5001;
    return `postgres://postgres@${this.vars.HA_LB_DB}:${port}/postgres`;
  }

  /** Redis on its host. */
  get redisUrl(): string {
    return `redis://${addressOf(this.vars, 'redis')}:6379`;
  }

  /** The API through HAProxy. */
  get publicUrl(): string {
    return this.vars.HA_PUBLIC_URL as string;
  }

  /** An API process's own address (as HAProxy reaches it). */
  appUrl(host: AppHost): string {
    return `http://${addressOf(this.vars, host)}:3000`;
  }

  /** Starts one engine (see deploy/ha/start-host.sh) in its host. */
  startEngine(host: EngineHost): TrackedProcess {
    const proc = spawnTracked({
      command: 'ip',
      args: ['netns', 'exec', `ha-${host}`, join(HA_DIR, 'start-host.sh'), host],
      env: { ...process.env, HA_RUN_DIR: this.runDir },
      outputLimit: 200_000,
    });
    this.#engines.set(host, proc);
    return proc;
  }

  /** Starts `customer-api serve` (api hosts) or `dispatch` (disp1) in its host; waits until ready. */
  async startApp(host: AppHost, env: Record<string, string>): Promise<TrackedProcess> {
    const command = host === 'disp1' ? 'dispatch' : 'serve';
    const proc = spawnTracked({
      command: 'ip',
      args: ['netns', 'exec', `ha-${host}`, process.execPath, SERVER_CLI, command],
      env: {
        ...env,
        HOST: addressOf(this.vars, host),
        PORT: '3000',
        ...(host === 'disp1' ? { DISPATCH_PORT: '3001' } : {}),
      },
      outputLimit: 200_000,
    });
    this.#apps.set(host, proc);
    const readyUrl =
      host === 'disp1' ? `http://${addressOf(this.vars, host)}:3001/healthz` : `${this.appUrl(host)}/healthz`;
    await waitUntil(proc, `${readyUrl} answered`, async () => (await fetch(readyUrl)).ok, {
      timeoutMs: 60_000,
    });
    return proc;
  }

  /** The processes' output, for a failure's message. */
  output(host: EngineHost | AppHost): string {
    return (this.#engines.get(host as EngineHost) ?? this.#apps.get(host as AppHost))?.output() ?? '';
  }

  /** Patroni's members, from whichever node answers. */
  async members(): Promise<Member[]> {
    for (const node of ['pg1', 'pg2'] as const) {
      try {
        const res = await fetch(`http://${addressOf(this.vars, node)}:8008/cluster`, {
          signal: AbortSignal.timeout(1000),
        });
        if (res.ok) return ((await res.json()) as { members: Member[] }).members;
      } catch {
        // the other node may answer
      }
    }
    return [];
  }

  /** The node holding the leader key, or undefined while none does. */
  async primary(): Promise<Node | undefined> {
    return (await this.members()).find((m) => m.role === 'leader' && m.state === 'running')?.name;
  }

  /**
   * Waits until `size` members run: a leader and, with two, a synchronous standby streaming from
   * it with no lag (an acknowledged commit is on both again).
   */
  async waitForCluster(size: 1 | 2, timeoutMs: number): Promise<Member[]> {
    let members: Member[] = [];
    await this.#waitFor(
      `a cluster of ${size}`,
      async () => {
        members = await this.members();
        const leader = members.find((m) => m.role === 'leader' && m.state === 'running');
        if (size === 1) return leader !== undefined;
        const standby = members.find(
          (m) => m.role === 'sync_standby' && (m.state === 'streaming' || m.state === 'running'),
        );
        return leader !== undefined && standby !== undefined && (standby.lag === 0 || standby.lag === '0');
      },
      timeoutMs,
    );
    return members;
  }

  /** Kills every process of `host` with SIGKILL, as when the machine dies. */
  async killHost(host: Host): Promise<void> {
    const { stdout } = await run('ip', ['netns', 'pids', `ha-${host}`]);
    const pids = stdout.split('\n').filter(Boolean);
    if (pids.length > 0) await run('kill', ['-9', ...pids]).catch(() => {});
    const engine = this.#engines.get(host as EngineHost);
    if (engine) await engine.exited;
    const app = this.#apps.get(host as AppHost);
    if (app) await app.exited;
  }

  /** Takes `host`'s only link down (every peer's packets to and from it are lost) or back up. */
  async link(host: Host, state: 'up' | 'down'): Promise<void> {
    await run('ip', ['-n', `ha-${host}`, 'link', 'set', 'eth0', state]);
    if (state === 'down') this.#faults.push(() => this.link(host, 'up'));
  }

  /**
   * Drops every packet between `host` and `addresses`, both ways, without closing anything: a
   * partition as the peers see it (connections go silent, new ones time out).
   */
  async cut(host: Host, addresses: string[]): Promise<void> {
    for (const address of addresses) await this.#drop(host, 'A', address, []);
    this.#faults.push(() => this.heal(host, addresses));
  }

  /** Undoes {@link cut}. */
  async heal(host: Host, addresses: string[]): Promise<void> {
    for (const address of addresses) await this.#drop(host, 'D', address, []).catch(() => {});
  }

  /** Drops `percent` of the packets between `host` and `address`, both ways (iptables statistic). */
  async loss(host: Host, address: string, percent: number): Promise<void> {
    const rule = ['-m', 'statistic', '--mode', 'random', '--probability', String(percent / 100)];
    await this.#drop(host, 'A', address, rule);
    this.#faults.push(() => this.clearLoss(host, address, percent));
  }

  /** Undoes {@link loss}. */
  async clearLoss(host: Host, address: string, percent: number): Promise<void> {
    const rule = ['-m', 'statistic', '--mode', 'random', '--probability', String(percent / 100)];
    await this.#drop(host, 'D', address, rule).catch(() => {});
  }

  async #drop(host: Host, action: 'A' | 'D', address: string, match: string[]): Promise<void> {
    await inHost(host, 'iptables', [`-${action}`, 'OUTPUT', '-d', address, ...match, '-j', 'DROP']);
    await inHost(host, 'iptables', [`-${action}`, 'INPUT', '-s', address, ...match, '-j', 'DROP']);
  }

  /** A planned switchover to `candidate` with patronictl. */
  async switchover(leader: Node, candidate: Node): Promise<void> {
    await run(
      'patronictl',
      [
        '-c',
        join(HA_DIR, 'patroni.yml'),
        'switchover',
        '--leader',
        leader,
        '--candidate',
        candidate,
        '--force',
      ],
      { env: { ...process.env, PATRONI_ETCD3_HOSTS: `${addressOf(this.vars, 'etcd')}:2379` } },
    );
  }

  /** Stops every process (apps first), undoes any fault left, removes the run's state. */
  async stop(): Promise<void> {
    for (const heal of this.#faults.splice(0).reverse()) await heal().catch(() => {});
    await Promise.all([...this.#apps.values()].map((p) => p.stop(10_000)));
    await Promise.all([...this.#engines.values()].map((p) => p.stop(15_000)));
    await rm(this.runDir, { recursive: true, force: true });
  }

  async #waitFor(what: string, ready: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await ready().catch(() => false)) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    const logs = (['etcd', 'pg1', 'pg2', 'lb'] as const)
      .map((host) => `--- ${host}\n${this.output(host).slice(-3000)}`)
      .join('\n');
    throw new Error(`not ${what} within ${timeoutMs} ms\n${logs}`);
  }
}
