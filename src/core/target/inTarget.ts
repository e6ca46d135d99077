/**
 * Pieces that run inside the target's own processes, shared by Hotpath's preloads (the profiling
 * preload and the startup preload). Bundled into each preload: no dependencies but Node's own, every
 * step guarded, nothing printed, no listener added to the app's objects.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { DISABLE_FLAGS } from '../v8/flags';
import { OWNER_PID_ENV } from './reports';

// Launchers that only start another node process: profiling them is noise, pausing them is harmful.
// Matched against the real path of the script: /usr/bin/npx is a symlink to npm/bin/npx-cli.js.
const WRAPPER = /[\\/](npm-cli|npx-cli|pnpm|pnpx|yarn|yarnpkg|corepack)(\.c?js)?$|[\\/]node_modules[\\/](npm|pnpm|yarn|corepack|nodemon)[\\/]|[\\/]tsx[\\/]dist[\\/]cli\.m?js$/;
const WRAPPER_NAMES = /^(npm|npx|pnpm|pnpx|yarn|yarnpkg|corepack|nodemon)$/;

/** How often the watchdog looks for Hotpath's process, and how long the app gets to stop on its own. */
const WATCHDOG_MS = 500;
const STOP_GRACE_MS = 3000;

/** Appends one report line for the launcher (see reports.ts). */
export function appendReport(file: string, value: object): void {
  try { fs.appendFileSync(file, JSON.stringify(value) + '\n'); } catch { /* launcher gone: nothing to tell */ }
}

export function isWrapperScript(script: string | undefined): boolean {
  if (!script) return false;
  if (WRAPPER_NAMES.test(path.basename(script))) return true;
  let real = script;
  try { real = fs.realpathSync(script); } catch { /* not a file: judge the name as given */ }
  return WRAPPER.test(script) || WRAPPER.test(real);
}

export interface ListenObserver {
  onListening(address: net.AddressInfo, server: net.Server): void;
  onError(err: NodeJS.ErrnoException & { port?: number }): void;
}

/**
 * The first port a server of this process listens on. The server's own `emit` is wrapped until its
 * 'listening' or 'error' event went by: no listener is added, so an unhandled 'error' (EADDRINUSE)
 * still throws and ends the app exactly as it would without Hotpath.
 */
export function observeListen(observer: ListenObserver): void {
  let reported = false;
  const original = net.Server.prototype.listen;
  net.Server.prototype.listen = function patchedListen(this: net.Server, ...args: unknown[]) {
    try {
      const server = this as net.Server & { emit: (event: string | symbol, ...a: unknown[]) => boolean };
      if (!(server.emit as { hotpath?: boolean }).hotpath) {
        const emit = server.emit;
        // Put back the emit that was there (the prototype's, or the app's own) by assignment, never by
        // `delete`: deleting a property that was not the last one added turns the server into a
        // dictionary-mode object in V8, and every property read of it on the request path gets slower
        // for the rest of the run — the profiled app would not be the app. Left as an own property
        // holding the same function, the server keeps fast properties (test/unit/target/inTarget.test.ts).
        const restore = () => {
          if (server.emit === wrapped) server.emit = emit;
        };
        const wrapped = function hotpathObserveListen(this: net.Server, event: string | symbol, ...rest: unknown[]): boolean {
          if (event === 'listening') {
            restore();
            const address = server.address();
            if (!reported && address && typeof address !== 'string') {
              reported = true;
              try { observer.onListening(address, server); } catch { /* never break the app's listen */ }
            }
          } else if (event === 'error') {
            restore();
            try { observer.onError(rest[0] as NodeJS.ErrnoException & { port?: number }); } catch { /* as above */ }
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
 * Polls Hotpath's process (cheap: signal 0). When it is gone, nobody will ever switch V8's tracing off,
 * close the inspector or stop the app: do all three here. The group leader stops the whole group.
 */
export function watchOwner(): void {
  const owner = Number(process.env[OWNER_PID_ENV]);
  if (!Number.isInteger(owner) || owner <= 1) return;
  const gone = () => {
    try { process.kill(owner, 0); return false; } catch (err) { return (err as NodeJS.ErrnoException).code === 'ESRCH'; }
  };
  const timer = setInterval(() => {
    if (!gone()) return;
    clearInterval(timer);
    // Loaded here, not at start-up: a timed start must not pay for modules it does not use.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    try { (require('node:v8') as typeof import('node:v8')).setFlagsFromString(DISABLE_FLAGS); } catch { /* nothing was on */ }
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    try { const inspector = require('node:inspector') as typeof import('node:inspector'); if (inspector.url()) inspector.close(); } catch { /* no inspector */ }
    // The process Hotpath spawned leads the target's process group (spawned detached).
    const leader = owner === process.ppid;
    try { process.kill(leader ? -process.pid : process.pid, 'SIGTERM'); } catch { /* already stopping */ }
    const hard = setTimeout(() => { try { process.kill(process.pid, 'SIGKILL'); } catch { /* gone */ } }, STOP_GRACE_MS);
    hard.unref();
  }, WATCHDOG_MS);
  timer.unref();
}
