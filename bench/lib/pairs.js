'use strict';
// Small helpers the in-process overhead suites share: summaries of interleaved pairs and the app's CPU time.
const fs = require('node:fs');

const round = (v, digits = 1) => (v === null || v === undefined || Number.isNaN(v) ? null : Math.round(v * 10 ** digits) / 10 ** digits);

function median(values) {
  const s = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (s.length === 0) return null;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** { min, median, max, n } of finite values, rounded to 2 decimals. */
function minMedianMax(values) {
  const s = values.filter((v) => Number.isFinite(v));
  if (s.length === 0) return { min: null, median: null, max: null, n: 0 };
  return { min: round(Math.min(...s), 2), median: round(median(s), 2), max: round(Math.max(...s), 2), n: s.length };
}

/** CPU time (user + system, all threads) a process has used so far, ms (Linux /proc; NaN elsewhere). */
function processCpuMs(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

module.exports = { round, median, minMedianMax, processCpuMs };
