/**
 * Temporary state a Hotpath run leaves only when it is killed (SIGKILL, a crash) before its cleanup.
 * Every folder a run makes in the temporary directory carries its owner's PID (`owner.pid`), and each
 * run removes those whose owner is gone, with what they stand for:
 * - `hotpath-target-*`: a target's report directory; processes still carrying its variable (a daemon
 *   the app started without Hotpath's preload, which has no watchdog of its own) are stopped first;
 * - `hotpath-base-*`: a revision's temporary git worktree, with its entry in the repository;
 * - `hotpath-bench-*`: one benchmark process's results; `hotpath-node-*`: a Node.js download;
 *   `hotpath-compile-cache-*`: the compile cache `hotpath startup` tries.
 * Plus V8 trace files of processes that have exited. Folders of runs still going are kept.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Logger } from '../common/logger';
import { traceDirectory } from '../v8/flags';
import { removeWorktreeSync } from '../variants/worktreeEntry';
import { processesWithEnv } from './envProcesses';
import { isRunning } from './processTree';
import { REPORT_FILE_ENV } from './reports';

const OWNER_FILE = 'owner.pid';
/** A directory without an owner file (an older Hotpath, or one being created) counts as stale after this long. */
const UNOWNED_STALE_MS = 24 * 3600 * 1000;

/** What removing a stale folder of each kind involves beyond deleting it. */
const KINDS: Record<string, (dir: string) => void> = {
  'hotpath-target-': (dir) => {
    for (const pid of processesWithEnv(REPORT_FILE_ENV, path.join(dir, 'reports.jsonl'))) {
      try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  },
  // The worktree is `<dir>/tree` (an older Hotpath used `<dir>` itself).
  'hotpath-base-': (dir) => {
    removeWorktreeSync(fs.existsSync(path.join(dir, 'tree')) ? path.join(dir, 'tree') : dir);
    fs.rmSync(dir, { recursive: true, force: true });
  },
  'hotpath-bench-': (dir) => fs.rmSync(dir, { recursive: true, force: true }),
  'hotpath-node-': (dir) => fs.rmSync(dir, { recursive: true, force: true }),
  'hotpath-compile-cache-': (dir) => fs.rmSync(dir, { recursive: true, force: true }),
};

export function writeOwner(dir: string): void {
  fs.writeFileSync(path.join(dir, OWNER_FILE), String(process.pid));
}

/** A new folder `<tmpdir>/<prefix>XXXXXX` owned by this process (see above); `prefix` is one of KINDS. */
export function ownedTempDir(prefix: string): string {
  if (!Object.keys(KINDS).some((k) => prefix.startsWith(k))) throw new Error(`No stale-file rule for ${prefix}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  writeOwner(dir);
  return dir;
}

function ownerOf(dir: string): number | null {
  try { return Number(fs.readFileSync(path.join(dir, OWNER_FILE), 'utf8').trim()) || null; } catch { return null; }
}

const mine = (st: fs.Stats) => typeof process.getuid !== 'function' || st.uid === process.getuid();

/** Removes what runs whose process is gone left behind (see above); returns what was removed. */
export function removeStaleFiles(logger?: Logger, tmp = os.tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[] = [];
  try { names = fs.readdirSync(tmp); } catch { /* no temporary directory: nothing left there */ }
  for (const name of names) {
    const kind = Object.keys(KINDS).find((k) => name.startsWith(k));
    if (!kind) continue;
    const dir = path.join(tmp, name);
    try {
      const st = fs.lstatSync(dir);
      if (!st.isDirectory() || !mine(st)) continue; // never follow a symlink, never touch another user's
      const owner = ownerOf(dir);
      const stale = owner !== null ? !isRunning(owner) : Date.now() - st.mtimeMs > UNOWNED_STALE_MS;
      if (!stale) continue;
      KINDS[kind](dir);
      removed.push(dir);
    } catch { /* raced with its owner's cleanup */ }
  }
  // Trace files are named by the traced process's PID: one whose process is gone is left over.
  try {
    const traces = traceDirectory();
    for (const name of fs.readdirSync(traces)) {
      const pid = Number(/^(\d+)\.trace$/.exec(name)?.[1]);
      if (!pid || isRunning(pid)) continue;
      fs.rmSync(path.join(traces, name), { force: true });
      removed.push(path.join(traces, name));
    }
  } catch { /* no trace directory yet */ }
  if (removed.length) logger?.info(`Removed ${removed.length} file(s) left by an earlier Hotpath run that was killed: ${removed.join(', ')}`);
  return removed;
}
