/**
 * The startup preload: loaded with `--require` (NODE_OPTIONS) into every node process of a start that
 * `hotpath startup` times or profiles. Self-contained (it runs inside the user's process), guarded at
 * every step, silent, and it adds no listener to the app's objects. Worker threads are left alone.
 *
 * - Every process reports when its clock started, so Hotpath can tell how long a wrapper (npm run)
 *   took before the program itself began.
 * - The end of startup is the process's exit or its first listening server, whichever comes first;
 *   the process reports that moment (its own clock) and its CPU time.
 * - `modules` mode: the CommonJS loader's `Module.prototype.load` is timed (one call per module really
 *   loaded: reading, compiling and running it, its own requires included) with the line that asked
 *   for it, and the ES module loader's resolutions are recorded through `module.registerHooks`
 *   (Node 22.15+) to know who imported what. The hooks time themselves.
 * - `profile` mode: an in-process CPU profile from here to the end of startup, at the fine interval
 *   Hotpath asks for, written to the report directory.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { appendReport, isWrapperScript, observeListen, watchOwner } from '../target/inTarget';
import { REPORT_FILE_ENV, SAMPLING_ENV } from '../target/reports';
import { type CjsModuleRecord, type EsmImportRecord, type ModulesFile, STARTUP_MODE_ENV, type StartupEndReport, type StartupProcessReport, type StartupRunMode } from './reports';

type ModuleLike = { filename?: string; id?: string };
type LoaderModule = {
  _load: (request: string, parent: ModuleLike | undefined, isMain: boolean) => unknown;
  prototype: { load: (this: ModuleLike, filename: string) => unknown };
  isBuiltin?: (request: string) => boolean;
  registerHooks?: (hooks: { resolve?: (specifier: string, context: { parentURL?: string; conditions?: string[] }, next: (s: string, c?: unknown) => { url: string; format?: string | null }) => { url: string; format?: string | null } }) => { deregister(): void };
  enableCompileCache?: unknown;
  getCompileCacheDir?: () => string | undefined;
};

const now = () => performance.now();

/** Frames of this file and Node's internals are not "who required it". */
const SELF = typeof __filename === 'string' ? __filename : '';

interface Pending {
  record: CjsModuleRecord;
  where: { stack?: unknown };
}

class ModuleRecorder {
  readonly cjs: Pending[] = [];
  readonly esm: EsmImportRecord[] = [];
  hookMs = 0;
  esmUnavailable: string | undefined;
  private readonly requests: string[] = [];
  private readonly open: Pending[] = [];
  private stopped = false;
  private undo: Array<() => void> = [];

  install(Module: LoaderModule): void {
    const recorder = this;
    const originalLoad = Module._load;
    const isBuiltin = Module.isBuiltin ?? (() => false);
    // Only to know the request text of the module `load` is about to read; no timing here.
    Module._load = function hotpathStartupRequest(this: unknown, request: string, ...rest: [ModuleLike | undefined, boolean]) {
      if (recorder.stopped || typeof request !== 'string' || isBuiltin(request)) return originalLoad.call(this, request, ...rest);
      recorder.requests.push(request);
      try { return originalLoad.call(this, request, ...rest); } finally { recorder.requests.pop(); }
    } as LoaderModule['_load'];
    const originalModuleLoad = Module.prototype.load;
    Module.prototype.load = function hotpathStartupLoad(this: ModuleLike, filename: string) {
      if (recorder.stopped) return originalModuleLoad.call(this, filename);
      const t0 = now();
      const limit = Error.stackTraceLimit;
      const pending: Pending = {
        record: { file: filename, request: recorder.requests[recorder.requests.length - 1] ?? null, parent: recorder.open[recorder.open.length - 1]?.record.file ?? null, from: null, line: null, startMs: 0, totalMs: 0, childMs: 0 },
        where: {},
      };
      // A raw capture is cheap; the frames are only formatted at the end, for the modules kept.
      Error.stackTraceLimit = 12;
      Error.captureStackTrace(pending.where, hotpathStartupLoad);
      Error.stackTraceLimit = limit;
      recorder.open.push(pending);
      const t1 = now();
      recorder.hookMs += t1 - t0;
      pending.record.startMs = t1;
      try {
        return originalModuleLoad.call(this, filename);
      } finally {
        const t2 = now();
        recorder.open.pop();
        pending.record.totalMs = t2 - t1;
        const parent = recorder.open[recorder.open.length - 1];
        if (parent) parent.record.childMs += pending.record.totalMs;
        recorder.cjs.push(pending);
        recorder.hookMs += now() - t2;
      }
    };
    this.undo.push(() => { Module._load = originalLoad; Module.prototype.load = originalModuleLoad; });

    if (typeof Module.registerHooks === 'function') {
      try {
        const hooks = Module.registerHooks({
          resolve(specifier, context, nextResolve) {
            const resolved = nextResolve(specifier, context);
            if (!recorder.stopped && context.conditions?.includes('import') && !resolved.url.startsWith('node:')) {
              const t = now();
              recorder.esm.push({ specifier, parentUrl: context.parentURL ?? null, url: resolved.url, format: resolved.format ?? null });
              recorder.hookMs += now() - t;
            }
            return resolved;
          },
        });
        this.undo.push(() => hooks.deregister());
      } catch (err) {
        this.esmUnavailable = `module.registerHooks failed (${err instanceof Error ? err.message : String(err)})`;
      }
    } else {
      this.esmUnavailable = `Node ${process.version} has no module.registerHooks (Node 22.15+), so who imported which ES module is not known`;
    }
  }

  /** Startup is over: later loads are not part of it. The hooks stay (removing them could race a load in progress) but record nothing. */
  stop(): ModulesFile {
    this.stopped = true;
    // Modules still loading: a CLI that exits from its top-level code (tsc, many bins) ends startup
    // inside its own module's load, so those loads never return. Their time so far is their load time.
    const t = now();
    for (let i = this.open.length - 1; i >= 0; i--) {
      const p = this.open[i];
      p.record.totalMs = t - p.record.startMs;
      if (i > 0) this.open[i - 1].record.childMs += p.record.totalMs;
      this.cjs.push(p);
    }
    this.open.length = 0;
    const prepare = Error.prepareStackTrace;
    const cjs: CjsModuleRecord[] = [];
    try {
      Error.prepareStackTrace = (_error, frames) => frames;
      for (const p of this.cjs) {
        const frames = p.where.stack as NodeJS.CallSite[] | undefined;
        if (Array.isArray(frames)) {
          for (const f of frames) {
            const file = f.getFileName?.();
            if (!file || file.startsWith('node:') || file === SELF) continue;
            p.record.from = file;
            p.record.line = f.getLineNumber?.() ?? null;
            break;
          }
        }
        cjs.push(p.record);
      }
    } finally {
      Error.prepareStackTrace = prepare;
    }
    return { cjs, esm: this.esm, hookMs: this.hookMs, ...(this.esmUnavailable ? { esmUnavailable: this.esmUnavailable } : {}) };
  }
}

interface ProfilerSession { post(method: string, params?: object, callback?: (err: Error | null, result?: { profile?: unknown }) => void): void }

function startProfiler(): ProfilerSession | undefined {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const inspector = require('node:inspector') as typeof import('node:inspector');
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: Number(process.env[SAMPLING_ENV]) || 100 });
  session.post('Profiler.start');
  return session as unknown as ProfilerSession;
}

function main(): void {
  const file = process.env[REPORT_FILE_ENV];
  if (!file || !isMainThread) return;
  const mode = (process.env[STARTUP_MODE_ENV] ?? 'time') as StartupRunMode;
  try { watchOwner(); } catch { /* only the orphan case is unguarded */ }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Module = require('node:module') as unknown as LoaderModule;
  const wrapper = isWrapperScript(process.argv[1]);
  const facts: StartupProcessReport = {
    type: 'startup-process', pid: process.pid, ppid: process.ppid, argv: process.argv, execArgv: process.execArgv,
    nodeVersion: process.version, nodeEnv: process.env.NODE_ENV ?? null, wrapper, timeOrigin: performance.timeOrigin,
    compileCache: { available: typeof Module.enableCompileCache === 'function', directory: safe(() => Module.getCompileCacheDir?.() ?? null) ?? null },
  };
  appendReport(file, facts);
  if (wrapper) return;

  const dir = path.dirname(file);
  const recorder = mode === 'modules' ? new ModuleRecorder() : undefined;
  let session: ProfilerSession | undefined;
  try {
    recorder?.install(Module);
    if (mode === 'profile') session = startProfiler();
  } catch { /* measured without modules or profile: the report says what is missing */ }

  let ended = false;
  const end = (reason: StartupEndReport['reason'], port?: number) => {
    if (ended) return;
    ended = true;
    const at = performance.timeOrigin + now();
    const cpu = process.cpuUsage();
    const report: StartupEndReport = { type: 'startup-end', pid: process.pid, reason, at, cpuMs: (cpu.user + cpu.system) / 1000, bootstrapMs: bootstrapMs(), ...(port !== undefined ? { port } : {}) };
    if (recorder) {
      const out = path.join(dir, `modules-${process.pid}.json`);
      try { fs.writeFileSync(out, JSON.stringify(recorder.stop())); report.modulesPath = out; } catch { /* no modules for this run */ }
    }
    if (session) {
      // In-process posts complete synchronously: the profile is written before this returns.
      session.post('Profiler.stop', {}, (err, result) => {
        if (err || !result?.profile) return;
        const out = path.join(dir, `startup-${process.pid}.cpuprofile`);
        try { fs.writeFileSync(out, JSON.stringify(result.profile)); report.profilePath = out; } catch { /* lost */ }
      });
    }
    appendReport(file, report);
  };
  try {
    observeListen({ onListening: (address) => end('listen', address.port), onError: () => undefined });
  } catch { /* a start that listens is then timed to its exit */ }
  process.on('exit', () => end('exit'));
}

function bootstrapMs(): number | null {
  const t = (performance as { nodeTiming?: { bootstrapComplete?: number } }).nodeTiming?.bootstrapComplete;
  return typeof t === 'number' && t > 0 ? t : null;
}

function safe<T>(f: () => T): T | undefined {
  try { return f(); } catch { return undefined; }
}

try { main(); } catch { /* never break the app */ }
