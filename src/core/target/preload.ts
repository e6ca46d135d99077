/**
 * Loaded with `--require` (through NODE_OPTIONS) into every node process the target starts, so it
 * works for `node app.js` and for wrappers such as `npm start`, `npx tool` or `tsx`. It must never
 * change what the app does: every step is guarded, no listener is added to the app's objects, and
 * nothing is printed (NODE_OPTIONS carries --inspect-publish-uid=http, so opening the inspector does
 * not announce itself on the app's stderr).
 *
 * - HTTP mode: opens the inspector on 127.0.0.1 with a random port, reports its URL, and reports the
 *   first TCP port the process listens on (as clinic and 0x do), with the routes an Express or
 *   Fastify app registered on that server (reportRoutes).
 * - Script mode: the first non-wrapper process (the program) opens the inspector and pauses until
 *   Hotpath has started its profiler, so startup is profiled too. Every other node process and worker
 *   thread profiles itself in-process from its first line, without pausing and without an inspector,
 *   and writes its profile when it exits: 20 short children cost 20 short profiles, not 20 pauses.
 * - Always: a watchdog. Should Hotpath's own process disappear (SIGKILL, a crash), the app switches V8's
 *   tracing off, closes its inspector and stops, instead of running on, orphaned, with both.
 * Self-contained on purpose: it runs inside the user's process.
 */
import * as fs from 'node:fs';
import * as inspector from 'node:inspector';
import type * as net from 'node:net';
import * as path from 'node:path';
import { isMainThread, threadId } from 'node:worker_threads';
import { readAppRoutes, watchAppRoutes } from '../routes/appRoutes';
import { appendReport, isWrapperScript, observeListen as observe, watchOwner } from './inTarget';
import { MODE_ENV, REPORT_FILE_ENV, SAMPLING_ENV, type TargetReport } from './reports';

function report(file: string, value: TargetReport): void {
  appendReport(file, value);
}

/** Reports the first port a server of this process listens on, and a failed listen (see inTarget.ts). */
function observeListen(file: string): void {
  observe({
    onListening: (address, server) => {
      reportRoutes(file, server, address.port);
      report(file, { type: 'listening', pid: process.pid, port: address.port, address: address.address });
    },
    onError: (err) => report(file, { type: 'listen-error', pid: process.pid, code: err?.code ?? 'ERROR', port: err?.port ?? null, message: err?.message ?? String(err) }),
  });
}

/**
 * The routes the app registered on this server (Express, NestJS on Express, Fastify), for the request-path
 * offer: read-only, bounded, and never allowed to disturb listen().
 */
function reportRoutes(file: string, server: net.Server, port: number): void {
  try {
    const table = readAppRoutes(server);
    if (table) report(file, { type: 'routes', pid: process.pid, port, ...table });
  } catch { /* an app we cannot read: the offer has its startup output and '/' */ }
}

/**
 * Profile this thread in-process from now on and write the profile when it exits. Used for worker
 * threads (a remote Profiler.stop cannot reach a worker that is shutting down) and, in script mode,
 * for every node process but the first one.
 */
function profileInProcess(file: string): void {
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
      const out = path.join(path.dirname(file), `profile-${process.pid}-${threadId}.cpuprofile`);
      try {
        fs.writeFileSync(out, JSON.stringify(result.profile));
        report(file, { type: 'worker-profile', pid: process.pid, threadId, script: isMainThread ? process.argv[1] ?? null : require.main?.filename ?? null, path: out, ...(isMainThread ? { argv: process.argv.slice(1) } : {}) });
      } catch { /* nowhere to write: this profile is lost, the app is not */ }
    });
  });
}

/** Script mode: the first non-wrapper process to get here is the one Hotpath profiles remotely. */
function claimRemote(file: string): boolean {
  try {
    fs.closeSync(fs.openSync(path.join(path.dirname(file), 'remote.claim'), 'wx'));
    return true;
  } catch {
    return false;
  }
}

function openInspector(): { inspectorUrl: string | null; inspectorError?: string } {
  const existing = inspector.url();
  if (existing) return { inspectorUrl: existing };
  try {
    inspector.open(0, '127.0.0.1', false);
    return { inspectorUrl: inspector.url() ?? null };
  } catch (err) {
    return { inspectorUrl: null, inspectorError: err instanceof Error ? err.message : String(err) };
  }
}

function main(): void {
  const file = process.env[REPORT_FILE_ENV];
  if (!file) return;
  const mode = process.env[MODE_ENV] === 'script' ? 'script' : 'http';
  if (!isMainThread) {
    if (mode === 'script') { try { profileInProcess(file); } catch { /* never break the app */ } }
    return;
  }
  try { watchOwner(); } catch { /* the run still works; only the orphan case is unguarded */ }
  if (isWrapperScript(process.argv[1])) return;

  const facts = {
    pid: process.pid, ppid: process.ppid, argv: process.argv, execArgv: process.execArgv,
    nodeVersion: process.version, nodeEnv: process.env.NODE_ENV ?? null,
    maglev: Boolean((process.config.variables as Record<string, unknown>).v8_enable_maglev),
  };
  if (mode === 'script' && !claimRemote(file)) {
    profileInProcess(file);
    report(file, { type: 'process', ...facts, inspectorUrl: null, waiting: false, inProcess: true });
    return;
  }
  const opened = openInspector();
  if (mode === 'http') {
    try { watchAppRoutes(); } catch { /* no route table: the offer still has the app's output */ }
    observeListen(file);
  }
  const waiting = mode === 'script' && opened.inspectorUrl !== null;
  report(file, { type: 'process', ...facts, ...opened, waiting });
  if (waiting) {
    inspector.waitForDebugger();
    report(file, { type: 'resumed', pid: process.pid });
  }
}

main();
