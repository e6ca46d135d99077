'use strict';
// How many cores other programs keep busy: what `npm test` sizes its shared lane by (run.js, --jobs
// auto). "Other" leaves out this process's own group: the processes a script started beside `npm test`
// — .ci/run's typecheck, which runs while the tests start — are the run's own work, not a busy machine
// (counted as other, a typecheck still running made the whole shared lane run one file at a time).
const fs = require('node:fs');
const os = require('node:os');
const { execFileSync } = require('node:child_process');

/** Busy and total CPU time of the machine, ms (all cores). */
function machineTimes() {
  return os.cpus().reduce((a, c) => {
    const busy = c.times.user + c.times.nice + c.times.sys + c.times.irq;
    return { busy: a.busy + busy, all: a.all + busy + c.times.idle };
  }, { busy: 0, all: 0 });
}

let clockTicks = null;
/** Clock ticks per second of /proc's CPU times (USER_HZ). */
function ticksPerSecond() {
  if (clockTicks === null) {
    try { clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100; } catch { clockTicks = 100; }
  }
  return clockTicks;
}

/** The fields of /proc/PID/stat after the command name (which may hold spaces and parentheses). */
function statFields(pid) {
  const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return s.slice(s.lastIndexOf(')') + 2).split(' ');
}

/**
 * CPU time (user + system, ms) of each process in process group `pgrp`, by PID; null where /proc is not
 * there to read (then nothing is left out).
 */
function groupTimes(pgrp = ownGroup()) {
  if (pgrp === null || !fs.existsSync('/proc/self/stat')) return null;
  const perTick = 1000 / ticksPerSecond();
  const times = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const f = statFields(d); // [0] state, [2] pgrp, [11] utime, [12] stime
      if (Number(f[2]) === pgrp) times.set(Number(d), (Number(f[11]) + Number(f[12])) * perTick);
    } catch { /* ended meanwhile */ }
  }
  return times;
}

function ownGroup() {
  try { return Number(statFields('self')[2]); } catch { return null; }
}

/**
 * Cores kept busy by other programs between two samples ({ machine, group } from sample()): the
 * machine's busy time less this process group's, as cores. A group process that started in between
 * counts whole; one that ended in between is not subtracted (it can only make "other" look busier).
 */
function otherBusyCores(before, after, cores) {
  const all = after.machine.all - before.machine.all;
  if (all <= 0) return 0;
  const busy = after.machine.busy - before.machine.busy;
  let own = 0;
  if (before.group && after.group) for (const [pid, t] of after.group) own += t - (before.group.get(pid) ?? 0);
  const wallPerCore = all / cores;
  return Math.max(0, busy / wallPerCore - Math.max(0, own) / wallPerCore);
}

const sample = () => ({ machine: machineTimes(), group: groupTimes() });

/**
 * Other programs' cores over consecutive samples: the median of the windows between them. A group
 * process that ends inside a window counts as other there (above), and .ci/run's typecheck is four tsc
 * processes in a row: read over one 2 s window, one of them ending made an idle machine look 1.3 cores
 * busy and the shared lane ran 2 files at a time (census, 2026-11-27). A window or two like that is not
 * the median of five; a program that really keeps the machine busy is in most of them.
 */
function medianOtherBusy(samples, cores) {
  const windows = [];
  for (let i = 1; i < samples.length; i++) windows.push(otherBusyCores(samples[i - 1], samples[i], cores));
  if (!windows.length) return 0;
  windows.sort((a, b) => a - b);
  return windows[Math.floor((windows.length - 1) / 2)];
}

/** Samples for `ms`, in five windows, and answers { cores, busyCores } (busyCores: other programs'). */
async function measureOtherBusy(ms = 2000, windows = 5) {
  const cores = os.cpus().length;
  const samples = [sample()];
  for (let i = 0; i < windows; i++) {
    await new Promise((r) => setTimeout(r, ms / windows));
    samples.push(sample());
  }
  return { cores, busyCores: medianOtherBusy(samples, cores) };
}

module.exports = { measureOtherBusy, otherBusyCores, medianOtherBusy, groupTimes, ownGroup };
