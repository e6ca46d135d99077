/**
 * What the startup preload (running in each node process of a timed or profiled start) tells Hotpath,
 * one JSON line each in the launcher's report file (see target/reports.ts for the channel).
 */
import type { ProcessReport } from '../target/reports';

/** `time`: facts and the end of startup only; `modules`: also the module-load tree; `profile`: a CPU profile instead. */
export const STARTUP_MODE_ENV = 'HOTPATH_STARTUP_MODE';
export type StartupRunMode = 'time' | 'modules' | 'profile';

/** The file name of the built startup preload (dist/); its frames are Hotpath's own in any profile. */
export const STARTUP_PRELOAD_FILE_NAME = 'hotpath-startup-preload.js';

/** A node process of the command started (wrappers such as npm report themselves and do nothing else). */
export interface StartupProcessReport extends Pick<ProcessReport, 'pid' | 'ppid' | 'argv' | 'execArgv' | 'nodeVersion' | 'nodeEnv'> {
  type: 'startup-process';
  /** npm, npx, pnpm, yarn, corepack, nodemon, tsx's launcher: it only starts the program. */
  wrapper: boolean;
  /** When this process's clock started (performance.timeOrigin), ms since the epoch. */
  timeOrigin: number;
  /** `module.enableCompileCache` exists (Node 22.1+), and the cache directory when one is in use. */
  compileCache: { available: boolean; directory: string | null };
}

/** One module the CommonJS loader loaded (first load only: cache hits cost next to nothing). */
export interface CjsModuleRecord {
  /** The resolved file. */
  file: string;
  /** What the code asked for (`./lib/config`, `express`), when known. */
  request: string | null;
  /** The module being loaded when this one was (its time includes this one's). */
  parent: string | null;
  /** The module that required it, and the line of the call (1-based) when the stack shows it. */
  from: string | null;
  line: number | null;
  /** Load start, ms after the process's timeOrigin. */
  startMs: number;
  /** Reading, compiling and running it, its own requires included. */
  totalMs: number;
  /** The part of totalMs spent loading the modules it required (first loads). */
  childMs: number;
}

/** An `import` Node's ES module loader resolved (Node 22.15+ and 23.5+: module.registerHooks). */
export interface EsmImportRecord {
  specifier: string;
  /** The importing module's URL (undefined for the entry point). */
  parentUrl: string | null;
  url: string;
  format: string | null;
}

/** Startup ended in a process: it exited, or it started listening on a port. */
export interface StartupEndReport {
  type: 'startup-end';
  pid: number;
  reason: 'exit' | 'listen';
  /** When, ms since the epoch (performance.timeOrigin + performance.now()). */
  at: number;
  port?: number;
  /** User + system CPU time of the process until then (all its threads). */
  cpuMs: number;
  /** performance.nodeTiming: Node's own bootstrap, ms after timeOrigin. */
  bootstrapMs: number | null;
  /** `modules` mode: the file holding { cjs: CjsModuleRecord[], esm: EsmImportRecord[], hookMs }. */
  modulesPath?: string;
  /** `profile` mode: the CPU profile of this process from its preload to the end of startup. */
  profilePath?: string;
}

export interface ModulesFile {
  cjs: CjsModuleRecord[];
  esm: EsmImportRecord[];
  /** Time the hooks themselves took (their bookkeeping), so the cost of measuring is known. */
  hookMs: number;
  /** Why the ES module graph is missing, when it is (no module.registerHooks on this Node). */
  esmUnavailable?: string;
}

export type StartupReport = StartupProcessReport | StartupEndReport;
