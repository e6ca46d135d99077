import * as fs from 'node:fs';

/**
 * This user's processes whose environment carries `name=value`. Every process a command starts inherits
 * the variables Hotpath gave that command (unless it builds a new environment), so this finds the ones
 * that left its process tree and group: a detached or `setsid` daemon whose parent has exited, now a
 * child of init. Linux reads /proc/PID/environ (the environment the process was started with); other
 * systems have no cheap equivalent, and get none — there the process tree and group are all we know.
 */
export function processesWithEnv(name: string, value: string): number[] {
  if (process.platform !== 'linux') return [];
  const needle = Buffer.from(`${name}=${value}\0`);
  const out: number[] = [];
  let entries: string[];
  try { entries = fs.readdirSync('/proc'); } catch { return out; }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: Buffer;
    try { environ = fs.readFileSync(`/proc/${entry}/environ`); } catch { continue; } // another user's, or gone
    // Variables are NUL-terminated: the match starts the buffer or follows a NUL.
    for (let at = environ.indexOf(needle); at !== -1; at = environ.indexOf(needle, at + 1)) {
      if (at === 0 || environ[at - 1] === 0) { out.push(Number(entry)); break; }
    }
  }
  return out;
}
