import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/**
 * The Bun executable of the `bun` dev dependency. Its own install script (which links
 * `node_modules/.bin/bun`) does not run under pnpm's defaults, so the binary is taken from the
 * platform package `bun` depends on.
 */
export function bunBinary(): string {
  const fromBun = createRequire(require.resolve('bun/package.json'));
  const arch = process.arch === 'arm64' ? 'aarch64' : process.arch;
  const candidates = [
    `@oven/bun-${process.platform}-${arch}`,
    `@oven/bun-${process.platform}-${arch}-baseline`,
  ];
  for (const name of candidates) {
    try {
      return join(dirname(fromBun.resolve(`${name}/package.json`)), 'bin', 'bun');
    } catch {
      // not this variant
    }
  }
  throw new Error(`No Bun binary for ${process.platform}-${arch} (looked for ${candidates.join(', ')})`);
}

/** The `workerd` package's launcher script, which finds the platform binary. */
export function workerdLauncher(): string {
  return join(dirname(require.resolve('workerd/package.json')), 'bin', 'workerd');
}

/**
 * A workerd configuration running `worker.mjs` (beside it) with text bindings, and an outbound
 * network that may reach loopback (the default one reaches only public addresses).
 */
export function workerdConfig(bindings: Record<string, string>): string {
  const texts = Object.entries(bindings)
    .map(([name, value]) => `    (name = ${JSON.stringify(name)}, text = ${JSON.stringify(value)}),`)
    .join('\n');
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .checkWorker),
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
);

const checkWorker :Workerd.Worker = (
  modules = [(name = "worker.mjs", esModule = embed "worker.mjs")],
  compatibilityDate = "2025-09-01",
  bindings = [
${texts}
  ],
);
`;
}
