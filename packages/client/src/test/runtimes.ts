import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { CHROMIUM, CHROMIUM_FLAGS } from '@customer-api/test-server';
import { type Browser, chromium } from 'playwright-core';

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

/**
 * The Deno executable of the `deno` dev dependency. Like Bun's, its install script (which copies
 * the binary into the package) does not run under pnpm, so it is taken from the platform package.
 */
export function denoBinary(): string {
  const fromDeno = createRequire(require.resolve('deno/package.json'));
  const name = `@deno/${process.platform}-${process.arch}${process.platform === 'linux' ? '-glibc' : ''}`;
  try {
    const binary = process.platform === 'win32' ? 'deno.exe' : 'deno';
    return join(dirname(fromDeno.resolve(`${name}/package.json`)), binary);
  } catch {
    throw new Error(`No Deno binary for ${process.platform}-${process.arch} (looked for ${name})`);
  }
}

/** The part of `deno info --json`'s answer that {@link denoCodeModules} reads. */
interface DenoInfo {
  roots: string[];
  modules: Array<{ specifier: string; dependencies?: Array<{ code?: { specifier: string } }> }>;
}

/**
 * The modules Deno loads to run the root of a `deno info --json` answer: the code imports
 * followed from the root, leaving out what only type checking would read (declaration files and
 * what they reference).
 */
export function denoCodeModules(info: DenoInfo): string[] {
  const bySpecifier = new Map(info.modules.map((module) => [module.specifier, module]));
  const seen = new Set<string>();
  const pending = [...info.roots];
  for (let specifier = pending.pop(); specifier !== undefined; specifier = pending.pop()) {
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dependency of bySpecifier.get(specifier)?.dependencies ?? []) {
      if (dependency.code) pending.push(dependency.code.specifier);
    }
  }
  return [...seen];
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

/**
 * The file the package's root export resolves to for a runtime matching `conditions` (relative to
 * the package root, e.g. `dist/index.web.js`): the first matching key in the order `package.json`
 * lists them, as Node's resolution rules pick it. Where that runtime's import must land.
 */
export function exportTarget(packageRoot: string, conditions: string[]): string {
  const { exports } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as {
    exports: Record<string, unknown>;
  };
  let target = exports['.'];
  while (target && typeof target === 'object') {
    const entries = Object.entries(target as Record<string, unknown>);
    target = entries.find(([key]) => key === 'default' || conditions.includes(key))?.[1];
  }
  if (typeof target !== 'string') throw new Error(`The package exports nothing for ${conditions.join(', ')}`);
  return target.replace(/^\.\//, '');
}

/** Headless Chromium through playwright-core; fails, naming the fix, where it is not installed. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Headless Chromium is required for the client's browser check, and ${CHROMIUM} is missing: ` +
        "install Debian's chromium (apt-get install chromium), as .ci/run does.",
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_FLAGS] });
}

/** A static site on loopback serving a page that loads `/check.js` as a module, once it is set. */
export interface StaticSite {
  /** The page's origin, as its requests send it in `Origin`. */
  origin: string;
  /** Sets the script the page loads. */
  setScript(source: string): void;
  close(): Promise<void>;
}

/** Starts a {@link StaticSite} on `127.0.0.1` and an OS-assigned port. */
export async function startStaticSite(): Promise<StaticSite> {
  let script = '';
  const page = '<!doctype html><title>runtime check</title><script type="module" src="/check.js"></script>';
  const server = createServer((request, response) => {
    if (request.url === '/check.js') {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
    } else if (request.url === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setScript: (source) => {
      script = source;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
