import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Thrown when another live process holds the PGlite data directory. */
export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
}

/** Lock files this process holds: a second open from the same process must fail too. */
const held = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PGlite lets one process open a data directory at a time, and a second opener could corrupt it.
 * A lock file holding the owner's pid makes a second process fail at once with a clear message;
 * a lock left by a dead process is taken over. Returns the release function.
 */
export function acquireDataDirLock(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockPath = join(dataDir, 'customer-api.lock');
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      held.add(lockPath);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        held.delete(lockPath);
        rmSync(lockPath, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(lockPath, 'utf8').trim());
      // Our own pid counts only if this process really holds it: after a crash and restart a
      // container's server often gets the same pid again, and its old lock is stale.
      const ours = pid === process.pid;
      if ((ours && held.has(lockPath)) || (!ours && Number.isInteger(pid) && pid > 0 && isAlive(pid))) {
        throw new DataDirLockedError(
          `The data directory ${dataDir} is in use by another process (pid ${pid}), probably a running server. ` +
            'Stop it first, or point DATA_DIR elsewhere. (PGlite allows one process per data directory.)',
        );
      }
      rmSync(lockPath, { force: true });
    }
  }
  throw new DataDirLockedError(`Could not lock the data directory ${dataDir}.`);
}
