/**
 * The V8 flags Hotpath switches on in the target for the run, and where their output goes.
 *
 * V8 refuses these flags in NODE_OPTIONS and wrappers (npm start) hide the node command line, so they
 * are set at run time with v8.setFlagsFromString over the inspector — the one way that works for
 * launch, script and attach alike (v8-signals §8). The V8 *log* (--prof, --log-deopt) cannot be
 * switched on at run time and pauses while a CDP profile records, so the signals come from the
 * code tracer instead, which `--redirect-code-traces-to` sends to a file of ours rather than to the
 * app's stdout. V8 creates the code tracer (and fixes its file name) the first time it traces in a
 * process, so the file name must be the same every time we attach to that process: one per pid.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const TRACE_FLAGS = ['--trace-opt', '--trace-deopt', '--trace-deopt-verbose', '--print-opt-source', '--trace-file-names'];
/** PrintF to stdout, not the code tracer: only where we own the target's stdout. */
const STDOUT_FLAGS = ['--trace-turbo-inlining'];

/*
 * The order matters, and the redirect is never switched off again. V8's code tracer (CodeTracer) fixes
 * its file when it is created, on the first trace, and reads `--redirect-code-traces` afresh on every
 * open and close of a trace: created while the flag is off it writes to stdout (and later fclose()s
 * stdout); asked to trace after the flag went off it writes to a null FILE* — a crash of the app.
 * setFlagsFromString sets its flags one by one while V8's other threads may be tracing, so the
 * redirect comes first when switching on and stays on when switching off (with nothing traced it
 * costs nothing).
 */

/** Turns the signals on. (`--trace-deopt-verbose` does not imply `--trace-deopt` when set at run time on Node 24.) */
export function enableFlags(traceFile: string, options: { stdoutTraces: boolean }): string {
  return ['--redirect-code-traces', `--redirect-code-traces-to=${traceFile}`, ...TRACE_FLAGS, ...(options.stdoutTraces ? STDOUT_FLAGS : [])].join(' ');
}

/** Only where traces go (no tracing yet): `--redirect-code-traces-to` is read when an isolate first traces. */
export function redirectFlags(traceFile: string): string {
  return ['--redirect-code-traces', `--redirect-code-traces-to=${traceFile}`].join(' ');
}

/** Tracing off, natives and the redirect left as they are (the end of an isolate's set-up window, collector.ts). */
export const TRACING_OFF = [...TRACE_FLAGS, ...STDOUT_FLAGS].map((f) => f.replace(/^--/, '--no-')).join(' ');

/** Turns the signals off again; the process keeps running as it did before (attach). The redirect stays (see above). */
export const DISABLE_FLAGS = [...TRACE_FLAGS, ...STDOUT_FLAGS, '--allow-natives-syntax'].map((f) => f.replace(/^--/, '--no-')).join(' ');

export const NATIVES_ON = '--allow-natives-syntax';
export const NATIVES_OFF = '--no-allow-natives-syntax';

/** Flags of ours the app was started with: then its own tracing is left alone (we would turn it off). */
export function conflictingFlags(execArgv: readonly string[]): string[] {
  const ours = new Set([...TRACE_FLAGS, ...STDOUT_FLAGS, '--redirect-code-traces']);
  return execArgv.filter((a) => ours.has(a.split('=')[0]) || a.startsWith('--redirect-code-traces-to'));
}

/**
 * `<tmpdir>/hotpath-v8-<uid>/`, private to this user (0700). The target writes into it, so it must not
 * be a directory (or symlink) someone else prepared: refuse one we do not own.
 */
export function traceDirectory(): string {
  let base = os.tmpdir();
  if (/\s/.test(base)) base = '/tmp'; // setFlagsFromString splits its argument on whitespace
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const dir = path.join(base, `hotpath-v8-${uid}`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(dir);
  if (!st.isDirectory() || (typeof process.getuid === 'function' && st.uid !== process.getuid()) || (st.mode & 0o077) !== 0) {
    throw new Error(`${dir} is not a private directory of this user`);
  }
  return dir;
}

/**
 * `<pid>.trace` for the main thread, `<pid>-w<workerId>.trace` for a worker thread: V8 gives each
 * isolate its own code tracer, which starts its file afresh when created (collector.ts startWorker).
 */
export function traceFileFor(pid: number, workerId?: string): string {
  const worker = workerId !== undefined ? `-w${String(workerId).replace(/[^0-9a-z]/gi, '')}` : '';
  return path.join(traceDirectory(), `${pid}${worker}.trace`);
}

/** Removes a process's trace files, its workers' too (after it exited: it may have traced on its way out). */
export function removeTraceFile(pid: number): void {
  try {
    const dir = traceDirectory();
    for (const name of fs.readdirSync(dir)) {
      if (name === `${pid}.trace` || (name.startsWith(`${pid}-w`) && name.endsWith('.trace'))) fs.rmSync(path.join(dir, name), { force: true });
    }
  } catch { /* no directory: nothing to remove */ }
}
