/** The parts of Node's `process` the client reads, when the runtime has one (Node, Bun, Deno). */
interface ProcessLike {
  env?: Record<string, string | undefined>;
  version?: string;
  versions?: Record<string, string | undefined>;
}

function processLike(): ProcessLike | undefined {
  const value = (globalThis as { process?: unknown }).process;
  return typeof value === 'object' && value !== null ? (value as ProcessLike) : undefined;
}

/**
 * An environment variable, or `undefined` where the runtime has no `process.env` (Workers,
 * browsers) or refuses to read it (Deno without `--allow-env`).
 */
export function readEnv(name: string): string | undefined {
  try {
    const value = processLike()?.env?.[name];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** `node/v24.1.0`, `bun/1.2.0`, `deno/2.1.0`, else the runtime's own `navigator.userAgent`, else `js`. */
export function runtimeToken(): string {
  const versions = processLike()?.versions;
  if (versions?.bun) return `bun/${versions.bun}`;
  if (versions?.deno) return `deno/${versions.deno}`;
  if (versions?.node) return `node/v${versions.node}`;
  const agent = (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent;
  return typeof agent === 'string' && agent !== '' ? agent : 'js';
}
