import * as fs from 'node:fs';
import * as path from 'node:path';
import { type CancellationToken, delay, neverCancelled } from '../common/cancellation';
import { ErrorCode, HotpathError } from '../common/errors';

const isAlive = (pid: number): boolean => {
  try { process.kill(pid, 0); return true; } catch (err) { return (err as NodeJS.ErrnoException).code === 'EPERM'; }
};

/** An empty lock folder older than this is a crashed taker's (Windows cannot rename over it). */
const EMPTY_STALE_MS = 10_000;

/**
 * The owner of a lock folder and the file that names it: `owner-<pid>` (this protocol), or `pid` (an
 * older Hotpath's; never written now, so that removing it cannot remove a lock of this protocol).
 */
function ownerOf(lock: string): { pid: number; file: string } | 'empty' | 'unknown' | 'gone' {
  let names: string[];
  try { names = fs.readdirSync(lock); } catch { return 'gone'; }
  const named = names.map((n) => /^owner-(\d+)$/.exec(n)).find((m) => m);
  if (named) return { pid: Number(named[1]), file: named[0] };
  if (names.includes('pid')) {
    let pid = NaN;
    try { pid = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8').trim()); } catch { /* removed meanwhile */ }
    if (Number.isInteger(pid) && pid > 0) return { pid, file: 'pid' };
  }
  return names.length ? 'unknown' : 'empty';
}

/**
 * Removes a lock folder on behalf of its owner (its release, or the takeover of a dead owner's lock).
 * Removing the owner's file is the atomic step — of two processes taking over the same dead owner's
 * lock, exactly one succeeds, and a lock another process has taken since is not touched (it has
 * another owner file). Then only `rmdir`, never an emptying of "the rest": the folder is empty once
 * the owner file is gone, and on Linux a rename onto an empty folder succeeds — so a new owner's lock
 * may already be in place, and its owner file is what an emptying would delete (two holders at once,
 * caught by a CI run). `rmdir` fails on such a lock. A folder holding anything else (an older
 * Hotpath's `pid`) is left to the next look, which names that owner.
 */
function dismantle(lock: string, ownerFile: string): boolean {
  try { fs.unlinkSync(path.join(lock, ownerFile)); } catch { return false; }
  try { fs.rmdirSync(lock); } catch { /* a new owner's lock already, or another file of the old owner's */ }
  return true;
}

/**
 * Runs `fn` holding a directory lock, the same lock scripts/lib/cacheLock.js takes, so the test
 * toolchain and a user's `hotpath compare --node` never install into one folder at once.
 *
 * The lock is taken whole: a folder holding `owner-<pid>` is prepared beside it and renamed into
 * place, which fails while another lock is there — so a lock always names its owner (no window
 * between creating it and writing the PID), and an empty folder left by a crash is simply replaced.
 * A lock whose owner died is taken over (see dismantle); waiting is cancellable.
 */
export async function withDirLock<T>(lock: string, fn: () => Promise<T>, options: { token?: CancellationToken; timeoutMs?: number; onWait?: (ownerPid: number) => void } = {}): Promise<T> {
  const token = options.token ?? neverCancelled;
  const deadline = Date.now() + (options.timeoutMs ?? 30 * 60_000);
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  const ownerFile = `owner-${process.pid}`;
  const mine = `${lock}.${process.pid}-${Math.random().toString(36).slice(2)}.new`;
  fs.mkdirSync(mine);
  fs.writeFileSync(path.join(mine, ownerFile), '');
  let told = false;
  try {
    for (;;) {
      try {
        fs.renameSync(mine, lock);
        break;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'EEXIST' && code !== 'ENOTEMPTY' && code !== 'EPERM' && code !== 'EACCES' && code !== 'EISDIR') throw err;
      }
      const owner = ownerOf(lock);
      if (owner === 'gone') continue;
      if (owner === 'empty') {
        try { if (Date.now() - fs.statSync(lock).mtimeMs > EMPTY_STALE_MS) fs.rmdirSync(lock); } catch { /* taken meanwhile */ }
      } else if (owner !== 'unknown' && !isAlive(owner.pid)) {
        dismantle(lock, owner.file);
        continue;
      } else if (!told && owner !== 'unknown') {
        told = true;
        options.onWait?.(owner.pid);
      }
      if (Date.now() > deadline) {
        throw new HotpathError(ErrorCode.Timeout, `${lock} has been held by ${owner === 'unknown' || owner === 'empty' ? 'an unknown process' : `process ${owner.pid}`} for too long; if no install is running, delete that folder.`);
      }
      await delay(owner === 'empty' ? 100 : 500, token);
    }
  } finally {
    fs.rmSync(mine, { recursive: true, force: true }); // still there unless it became the lock
  }
  try { return await fn(); } finally { dismantle(lock, ownerFile); }
}
