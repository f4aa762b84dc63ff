import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';

/** The kernel's ephemeral range (Linux's default when it cannot be read): where `listen(0)` and outgoing connections take ports. */
export function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    if (low && high && low <= high) return [low, high];
  } catch {
    // Not Linux: its default below.
  }
  return [32768, 60999];
}

/** Where {@link freePort} draws from: the ports between 10000 and the ephemeral range, or above it when that starts too low. */
function stableRange(): [number, number] {
  const [low, high] = ephemeralRange();
  return low > 12000 ? [10000, low - 1] : [high + 1, 65535];
}

async function binds(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * A free TCP port on loopback, released for a child process to bind. Drawn at random outside the
 * kernel's ephemeral range, so no outgoing connection or `listen(0)` elsewhere takes it in the
 * seconds a child may need before it binds. Servers here print their configured port, so they
 * cannot listen on 0 themselves.
 */
export async function freePort(): Promise<number> {
  const [low, high] = stableRange();
  for (let tries = 0; tries < 100; tries++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (await binds(port)) return port;
  }
  throw new Error(`no free port on 127.0.0.1 between ${low} and ${high} after 100 tries`);
}

/**
 * Whether something accepts a TCP connection at `url`'s host and port (`defaultPort` when the URL
 * names none) within `timeoutMs`: a local PostgreSQL or Redis a test or benchmark may use when it
 * answers. The connection is closed at once.
 */
export async function tcpAnswers(url: string, defaultPort: number, timeoutMs = 1000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port || defaultPort), hostname);
    const done = (answers: boolean) => {
      socket.destroy();
      resolve(answers);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
