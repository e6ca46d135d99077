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
import * as net from 'node:net';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import { isMainThread, threadId } from 'node:worker_threads';
import { DISABLE_FLAGS } from '../v8/flags';
import { readAppRoutes, watchAppRoutes } from '../routes/appRoutes';
import { MODE_ENV, OWNER_PID_ENV, REPORT_FILE_ENV, SAMPLING_ENV, type TargetReport } from './reports';

// Launchers that only start another node process: profiling them is noise, pausing them is harmful.
// Matched against the real path of the script: /usr/bin/npx is a symlink to npm/bin/npx-cli.js.
const WRAPPER = /[\\/](npm-cli|npx-cli|pnpm|pnpx|yarn|yarnpkg|corepack)(\.c?js)?$|[\\/]node_modules[\\/](npm|pnpm|yarn|corepack|nodemon)[\\/]|[\\/]tsx[\\/]dist[\\/]cli\.m?js$/;
const WRAPPER_NAMES = /^(npm|npx|pnpm|pnpx|yarn|yarnpkg|corepack|nodemon)$/;

/** How often the watchdog looks for Hotpath's process, and how long the app gets to stop on its own. */
const WATCHDOG_MS = 500;
const STOP_GRACE_MS = 3000;

function report(file: string, value: TargetReport): void {
  try { fs.appendFileSync(file, JSON.stringify(value) + '\n'); } catch { /* launcher gone: nothing to tell */ }
}

function isWrapperScript(script: string | undefined): boolean {
  if (!script) return false;
  if (WRAPPER_NAMES.test(path.basename(script))) return true;
  let real = script;
  try { real = fs.realpathSync(script); } catch { /* not a file: judge the name as given */ }
  return WRAPPER.test(script) || WRAPPER.test(real);
}

/**
 * The first port a server of this process listens on. The server's own `emit` is wrapped until its
 * 'listening' or 'error' event went by: no listener is added, so an unhandled 'error' (EADDRINUSE)
 * still throws and ends the app exactly as it would without Hotpath.
 */
function observeListen(file: string): void {
  let reported = false;
  const original = net.Server.prototype.listen;
  net.Server.prototype.listen = function patchedListen(this: net.Server, ...args: unknown[]) {
    try {
      const server = this as net.Server & { emit: (event: string | symbol, ...a: unknown[]) => boolean };
      if (!(server.emit as { hotpath?: boolean }).hotpath) {
        const emit = server.emit;
        // Put back exactly what was there: the prototype's emit, or the app's own.
        const own = Object.prototype.hasOwnProperty.call(server, 'emit');
        const restore = () => {
          if (server.emit !== wrapped) return;
          if (own) server.emit = emit; else delete (server as { emit?: unknown }).emit;
        };
        const wrapped = function hotpathObserveListen(this: net.Server, event: string | symbol, ...rest: unknown[]): boolean {
          if (event === 'listening') {
            restore();
            const address = server.address();
            if (!reported && address && typeof address !== 'string') {
              reported = true;
              reportRoutes(file, server, address.port);
              report(file, { type: 'listening', pid: process.pid, port: address.port, address: address.address });
            }
          } else if (event === 'error') {
            restore();
            const err = rest[0] as (NodeJS.ErrnoException & { port?: number }) | undefined;
            report(file, { type: 'listen-error', pid: process.pid, code: err?.code ?? 'ERROR', port: err?.port ?? null, message: err?.message ?? String(err) });
          }
          return emit.call(this, event, ...rest);
        };
        (wrapped as { hotpath?: boolean }).hotpath = true;
        server.emit = wrapped;
      }
    } catch { /* never break listen() */ }
    return original.apply(this, args as Parameters<typeof original>);
  } as typeof original;
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

/**
 * Polls Hotpath's process (cheap: signal 0). When it is gone, nobody will ever switch V8's tracing off,
 * close the inspector or stop the app: do all three here. The group leader stops the whole group.
 */
function watchOwner(): void {
  const owner = Number(process.env[OWNER_PID_ENV]);
  if (!Number.isInteger(owner) || owner <= 1) return;
  const gone = () => {
    try { process.kill(owner, 0); return false; } catch (err) { return (err as NodeJS.ErrnoException).code === 'ESRCH'; }
  };
  const timer = setInterval(() => {
    if (!gone()) return;
    clearInterval(timer);
    try { v8.setFlagsFromString(DISABLE_FLAGS); } catch { /* nothing was on */ }
    try { if (inspector.url()) inspector.close(); } catch { /* no inspector */ }
    const leader = process.pid === getProcessGroupLeaderHint();
    try { process.kill(leader ? -process.pid : process.pid, 'SIGTERM'); } catch { /* already stopping */ }
    const hard = setTimeout(() => { try { process.kill(process.pid, 'SIGKILL'); } catch { /* gone */ } }, STOP_GRACE_MS);
    hard.unref();
  }, WATCHDOG_MS);
  timer.unref();
}

/** The process Hotpath spawned leads the target's process group (spawned detached). */
function getProcessGroupLeaderHint(): number {
  return Number(process.env[OWNER_PID_ENV]) === process.ppid ? process.pid : -1;
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
  if (waiting) inspector.waitForDebugger();
}

main();
