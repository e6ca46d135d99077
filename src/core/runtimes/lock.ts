import * as fs from 'node:fs';
import * as path from 'node:path';
import { type CancellationToken, delay, neverCancelled } from '../common/cancellation';
import { ErrorCode, HotpathError } from '../common/errors';

const isAlive = (pid: number): boolean => {
  try { process.kill(pid, 0); return true; } catch (err) { return (err as NodeJS.ErrnoException).code === 'EPERM'; }
};

/**
 * Runs `fn` holding a directory lock (mkdir is atomic), the same lock scripts/lib/cacheLock.js takes,
 * so the test toolchain and a user's `hotpath compare --node` never install into one folder at once.
 * A lock whose owner died is taken over; waiting is cancellable.
 */
export async function withDirLock<T>(lock: string, fn: () => Promise<T>, options: { token?: CancellationToken; timeoutMs?: number; onWait?: (ownerPid: number) => void } = {}): Promise<T> {
  const token = options.token ?? neverCancelled;
  const deadline = Date.now() + (options.timeoutMs ?? 30 * 60_000);
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  let told = false;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let owner = NaN;
      try { owner = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8')); } catch { /* being written */ }
      if (Number.isInteger(owner) && owner > 0 && !isAlive(owner)) { fs.rmSync(lock, { recursive: true, force: true }); continue; }
      if (!told && Number.isInteger(owner)) { told = true; options.onWait?.(owner); }
      if (Date.now() > deadline) throw new HotpathError(ErrorCode.Timeout, `${lock} has been held by process ${owner} for too long; if no install is running, delete that folder.`);
      await delay(500, token);
    }
  }
  try { return await fn(); } finally { fs.rmSync(lock, { recursive: true, force: true }); }
}
