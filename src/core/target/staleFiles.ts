/**
 * Temporary files a Hotpath run leaves only when it is killed (SIGKILL) before its cleanup: the
 * target's report directory (`<tmpdir>/hotpath-target-*`) and V8 trace files of processes that have
 * exited. Each run removes those whose owner is gone; directories of runs still going are kept.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Logger } from '../common/logger';
import { traceDirectory } from '../v8/flags';
import { isAlive } from './processTree';

const OWNER_FILE = 'owner.pid';
/** A directory without an owner file (an older Hotpath) counts as stale after this long. */
const UNOWNED_STALE_MS = 24 * 3600 * 1000;

export function writeOwner(dir: string): void {
  fs.writeFileSync(path.join(dir, OWNER_FILE), String(process.pid));
}

function ownerOf(dir: string): number | null {
  try { return Number(fs.readFileSync(path.join(dir, OWNER_FILE), 'utf8').trim()) || null; } catch { return null; }
}

/** Not running: no such process, or (Linux) a zombie nobody has reaped yet — an orphan's exit in a container. */
function gone(pid: number): boolean {
  if (!isAlive(pid)) return true;
  try { return /^\d+ \(.*\) Z/s.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')); } catch { return false; }
}

const mine = (st: fs.Stats) => typeof process.getuid !== 'function' || st.uid === process.getuid();

export function removeStaleTargetDirs(logger?: Logger, tmp = os.tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[];
  try { names = fs.readdirSync(tmp).filter((n) => n.startsWith('hotpath-target-')); } catch { return removed; }
  for (const name of names) {
    const dir = path.join(tmp, name);
    try {
      const st = fs.lstatSync(dir);
      if (!st.isDirectory() || !mine(st)) continue; // never follow a symlink, never touch another user's
      const owner = ownerOf(dir);
      const stale = owner !== null ? gone(owner) : Date.now() - st.mtimeMs > UNOWNED_STALE_MS;
      if (!stale) continue;
      fs.rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch { /* raced with its owner's cleanup */ }
  }
  // Trace files are named by the traced process's PID: one whose process is gone is left over.
  try {
    const traces = traceDirectory();
    for (const name of fs.readdirSync(traces)) {
      const pid = Number(/^(\d+)\.trace$/.exec(name)?.[1]);
      if (!pid || !gone(pid)) continue;
      fs.rmSync(path.join(traces, name), { force: true });
      removed.push(path.join(traces, name));
    }
  } catch { /* no trace directory yet */ }
  if (removed.length) logger?.info(`Removed ${removed.length} file(s) left by an earlier Hotpath run that was killed: ${removed.join(', ')}`);
  return removed;
}
