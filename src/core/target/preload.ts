/**
 * Loaded with `--require` (through NODE_OPTIONS) into every node process the target starts, so it
 * works for `node app.js` and for wrappers such as `npm start` or `tsx`. It opens the inspector on
 * 127.0.0.1 with a random port, reports its URL, and reports the first TCP port the process listens
 * on (as clinic and 0x do). In script mode it pauses until Hotpath has started the profiler, so
 * startup is profiled too. It must never break the app: every step is guarded.
 * Self-contained on purpose: it runs inside the user's process.
 */
import * as fs from 'node:fs';
import * as inspector from 'node:inspector';
import * as net from 'node:net';
import * as path from 'node:path';
import { isMainThread, threadId } from 'node:worker_threads';
import { MODE_ENV, REPORT_FILE_ENV, SAMPLING_ENV, type TargetReport } from './reports';

// Launchers that only start another node process: profiling them is noise, pausing them is harmful.
const WRAPPER = /[\\/](npm-cli|npx-cli|pnpm|pnpx|yarn|corepack)(\.c?js)?$|[\\/]node_modules[\\/](npm|pnpm|yarn|corepack|nodemon)[\\/]|[\\/]tsx[\\/]dist[\\/]cli\.m?js$/;

function report(file: string, value: TargetReport): void {
  try { fs.appendFileSync(file, JSON.stringify(value) + '\n'); } catch { /* launcher gone: nothing to tell */ }
}

function hookListen(file: string): void {
  let reported = false;
  const original = net.Server.prototype.listen;
  net.Server.prototype.listen = function patchedListen(this: net.Server, ...args: unknown[]) {
    this.once('listening', () => {
      const address = this.address();
      if (reported || !address || typeof address === 'string') return;
      reported = true;
      report(file, { type: 'listening', pid: process.pid, port: address.port, address: address.address });
    });
    this.once('error', (err: NodeJS.ErrnoException & { port?: number }) => {
      report(file, { type: 'listen-error', pid: process.pid, code: err.code ?? 'ERROR', port: err.port ?? null, message: err.message });
    });
    return original.apply(this, args as Parameters<typeof original>);
  } as typeof original;
}

/**
 * Script mode, in a worker thread: profile this thread in-process from its first line and write the
 * profile when it exits. (In HTTP mode workers are profiled remotely through the NodeWorker domain.)
 */
function profileWorkerThread(file: string): void {
  const session = new inspector.Session();
  session.connect();
  const interval = Number(process.env[SAMPLING_ENV]) || 1000;
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval });
  session.post('Profiler.start');
  process.on('exit', () => {
    // In-process posts complete synchronously, so this runs to the end inside the exit handler.
    session.post('Profiler.stop', (err, result) => {
      if (err || !result) return;
      const out = path.join(path.dirname(file), `worker-${process.pid}-${threadId}.cpuprofile`);
      try {
        fs.writeFileSync(out, JSON.stringify(result.profile));
        report(file, { type: 'worker-profile', pid: process.pid, threadId, script: require.main?.filename ?? null, path: out });
      } catch { /* nowhere to write: the worker's profile is lost, the app is not */ }
    });
  });
}

function main(): void {
  const file = process.env[REPORT_FILE_ENV];
  if (!file) return;
  const mode = process.env[MODE_ENV] === 'script' ? 'script' : 'http';
  if (!isMainThread) {
    if (mode === 'script') { try { profileWorkerThread(file); } catch { /* never break the app */ } }
    return;
  }
  if (WRAPPER.test(process.argv[1] ?? '')) return;

  let inspectorUrl: string | null = inspector.url() ?? null;
  let inspectorError: string | undefined;
  if (!inspectorUrl) {
    try {
      inspector.open(0, '127.0.0.1', false);
      inspectorUrl = inspector.url() ?? null;
    } catch (err) {
      inspectorError = err instanceof Error ? err.message : String(err);
    }
  }
  if (mode === 'http') hookListen(file);
  const waiting = mode === 'script' && inspectorUrl !== null;
  report(file, {
    type: 'process', pid: process.pid, ppid: process.ppid, argv: process.argv, execArgv: process.execArgv,
    nodeVersion: process.version, nodeEnv: process.env.NODE_ENV ?? null,
    maglev: Boolean((process.config.variables as Record<string, unknown>).v8_enable_maglev),
    inspectorUrl, inspectorError, waiting,
  });
  if (waiting) inspector.waitForDebugger();
}

main();
