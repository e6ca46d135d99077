import { execFile } from 'node:child_process';
import * as fs from 'node:fs';

/**
 * CPU time (user + system, all threads) a process has used so far, in ms; null when it cannot be read.
 * Linux: /proc/<pid>/stat (clock ticks of USER_HZ = 100, so 10 ms steps). Elsewhere: `ps -o time=`.
 *
 * Why it matters: on a busy machine another program takes the app's CPU away and req/s swings with it,
 * while the CPU time the app spends per request stays what the code costs.
 */
export async function processCpuMs(pid: number): Promise<number | null> {
  if (process.platform === 'linux') {
    try {
      // Fields after "(comm) ": state is field 3; utime and stime are fields 14 and 15.
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]);
      return Number.isFinite(ticks) ? ticks * 10 : null;
    } catch {
      return null;
    }
  }
  return new Promise((resolve) => {
    execFile('ps', ['-o', 'time=', '-p', String(pid)], { timeout: 5000 }, (err, stdout) => resolve(err ? null : parsePsTime(stdout.trim())));
  });
}

/** `ps`'s cumulative time: "[[dd-]hh:]mm:ss[.cc]" → ms. */
export function parsePsTime(text: string): number | null {
  const m = /^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)$/.exec(text);
  if (!m) return null;
  const [, d = '0', h = '0', min, sec] = m;
  return ((Number(d) * 24 + Number(h)) * 60 + Number(min)) * 60_000 + Number(sec) * 1000;
}
