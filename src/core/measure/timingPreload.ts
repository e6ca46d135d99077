/**
 * Loaded with `--require` into every node process of a timed command (`hotpath compare --script`): it
 * reports the process (its Node version, like the profiling preload) and, at exit, the CPU time the
 * process used (process.cpuUsage(): all its threads, microseconds). No inspector, no pausing, nothing
 * that changes what is timed. Self-contained on purpose: it runs inside the user's process.
 */
import * as fs from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const file = process.env.HOTPATH_REPORT_FILE;

function report(value: object): void {
  try { fs.appendFileSync(file!, JSON.stringify(value) + '\n'); } catch { /* launcher gone: nothing to tell */ }
}

if (file && isMainThread) {
  report({
    type: 'process', pid: process.pid, ppid: process.ppid, argv: process.argv, execArgv: process.execArgv,
    nodeVersion: process.version, nodeEnv: process.env.NODE_ENV ?? null, maglev: false, inspectorUrl: null, waiting: false,
  });
  process.on('exit', () => {
    const usage = process.cpuUsage();
    report({ type: 'cpu-usage', pid: process.pid, userUs: usage.user, systemUs: usage.system });
  });
}
