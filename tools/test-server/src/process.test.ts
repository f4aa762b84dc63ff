import { describe, expect, it } from 'vitest';
import { freePort } from './port.js';
import { spawnTracked, startProcess, stopProcess, waitUntilReady } from './process.js';

const node = (script: string) => ({ command: process.execPath, args: ['-e', script], env: {} });

/** Prints "ready" once it ignores SIGTERM, then waits forever. */
const STUBBORN = `process.on('SIGTERM', () => console.log('ignored')); console.log('ready'); setInterval(() => {}, 1000);`;

describe('spawnTracked and stopProcess', () => {
  it('keeps the output, finds a line as it is written, and ends with SIGTERM', async () => {
    const proc = spawnTracked(node(`console.log('one'); console.error('two'); setInterval(() => {}, 1000);`));
    expect(await proc.line(/^two$/)).toBe('two');
    expect(proc.output()).toContain('one');
    expect(proc.exitStatus()).toBeUndefined();
    expect(await proc.stop()).toBe('SIGTERM');
    expect(proc.exitStatus()).toBe('SIGTERM');
    // An ended process is not signalled again.
    expect(await stopProcess(proc.child, 0)).toBe('SIGTERM');
  });

  it('sends SIGKILL once the bound passes without an exit', async () => {
    const proc = spawnTracked(node(STUBBORN));
    await proc.line(/^ready$/);
    const stopped = proc.stop(50);
    expect(await proc.line(/^ignored$/)).toBe('ignored');
    expect(await stopped).toBe('SIGKILL');
  });

  it('finds a line written in two pieces', async () => {
    const proc = spawnTracked(
      node(`process.stdout.write('hal'); setTimeout(() => console.log('f done'), 50);`),
    );
    expect(await proc.line(/^half done$/)).toBe('half done');
    expect(await proc.exited).toBe(0);
  });

  it('keeps only the most recent output when limited, and stderr alone when asked', async () => {
    const proc = spawnTracked({
      ...node(`console.log('stdout'); console.error('abcdef');`),
      capture: 'stderr',
      outputLimit: 4,
    });
    expect(await proc.exited).toBe(0);
    expect(proc.output()).toBe('def\n');
  });
});

describe('waitUntilReady and startProcess', () => {
  it('resolves once the URL answers 2xx', async () => {
    const port = await freePort();
    const script = `
      let calls = 0;
      require('node:http').createServer((req, res) => { res.statusCode = ++calls < 3 ? 503 : 200; res.end(); })
        .listen(${port}, '127.0.0.1');`;
    const proc = await startProcess({
      ...node(script),
      readyUrl: `http://127.0.0.1:${port}/`,
      timeoutMs: 60_000,
    });
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
    expect(await proc.stop(10_000)).toBe('SIGTERM');
  });

  it('rejects with the output when the process exits first', async () => {
    const port = await freePort();
    const proc = spawnTracked(node(`console.error('no database'); process.exit(3);`));
    await expect(waitUntilReady(proc, `http://127.0.0.1:${port}/`, { timeoutMs: 60_000 })).rejects.toThrow(
      /exited \(3\)[\s\S]*no database/,
    );
  });

  it('stops a process that never becomes ready and rejects', async () => {
    const port = await freePort();
    const start = startProcess({
      ...node(STUBBORN),
      readyUrl: `http://127.0.0.1:${port}/`,
      timeoutMs: 0,
      killAfterMs: 0,
    });
    await expect(start).rejects.toThrow(/not .* answered within 0 ms/);
  });
});
