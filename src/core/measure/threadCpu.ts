import * as fs from 'node:fs';

/**
 * CPU time of each thread of a process, µs, by thread id; with each thread's name, the time it has
 * spent runnable but waiting for a core (`waitUs`: on a busy machine a thread that wants to run also
 * waits), and whether it is runnable now (`runnable`: running or queued for a core — the kernel adds a
 * wait to `waitUs` only once it ends, so a thread starved for longer than an interval shows no growth
 * there, but is runnable throughout).
 */
export type ThreadCpu = Map<string, { name: string; us: number; waitUs: number; runnable?: boolean }>;

/**
 * CPU time each thread of a local process has used so far (Linux: /proc/<pid>/task/<tid>/schedstat, in
 * nanoseconds), or null where that cannot be read (another OS, a process of another machine or user).
 * Per thread, because V8's CPU profiler does most of its work on a thread of its own ("v8:ProfEvntProc"):
 * its CPU time over a window is what sampling cost the app there, measured, not estimated.
 */
export function threadCpu(pid: number): ThreadCpu | null {
  if (process.platform !== 'linux' || !Number.isInteger(pid) || pid <= 0) return null;
  let tids: string[];
  try { tids = fs.readdirSync(`/proc/${pid}/task`); } catch { return null; }
  const out: ThreadCpu = new Map();
  for (const tid of tids) {
    try {
      // schedstat: time on a CPU, time waiting on a run queue (ns), time slices.
      const [ns, waitNs] = fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
      // stat: "tid (comm) state …": the thread's name and state in one read; the name may hold spaces
      // and parentheses, so it ends at the last ')'.
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const name = stat.slice(stat.indexOf('(') + 1, close);
      const runnable = stat.charAt(close + 2) === 'R';
      if (Number.isFinite(ns)) out.set(tid, { name, us: ns / 1000, waitUs: Number.isFinite(waitNs) ? waitNs / 1000 : 0, runnable });
    } catch { /* the thread ended meanwhile */ }
  }
  return out.size ? out : null;
}

/** CPU µs between two readings: in all threads, and in the threads whose name `isPart` accepts. */
export function cpuBetween(before: ThreadCpu, after: ThreadCpu, isPart: (name: string) => boolean): { totalUs: number; partUs: number } {
  let totalUs = 0;
  let partUs = 0;
  for (const [tid, a] of after) {
    // A thread started inside the window (the profiler's own) counts from zero.
    const d = Math.max(0, a.us - (before.get(tid)?.us ?? 0));
    totalUs += d;
    if (isPart(a.name)) partUs += d;
  }
  return { totalUs, partUs };
}
