/**
 * What the preload (running inside each node process of the target) tells the launcher, one JSON
 * object per line appended to the file named by HOTPATH_REPORT_FILE. A file, not a socket, because
 * the preload must report synchronously before user code runs (and before waitForDebugger blocks).
 */
import type { RouteTable } from '../routes/expressRoutes';

export const REPORT_FILE_ENV = 'HOTPATH_REPORT_FILE';
export const MODE_ENV = 'HOTPATH_MODE';
/** Script mode: the sampling interval for worker threads, which profile themselves in-process. */
export const SAMPLING_ENV = 'HOTPATH_SAMPLING_INTERVAL';
/** Hotpath's own PID: the preload's watchdog stops the app when that process is gone. */
export const OWNER_PID_ENV = 'HOTPATH_OWNER_PID';
/**
 * The file name of the built preload (dist/). Distinctive, so its frames are recognised as Hotpath's own
 * in any profile, wherever Hotpath is installed.
 */
export const PRELOAD_FILE_NAME = 'hotpath-preload.js';

export type TargetMode = 'http' | 'script';

export interface ProcessReport {
  type: 'process';
  pid: number;
  ppid: number;
  argv: string[];
  execArgv: string[];
  nodeVersion: string;
  nodeEnv: string | null;
  /** `process.config.variables.v8_enable_maglev`: which V8 tiers exist in this build. */
  maglev: boolean;
  /** ws:// URL of this process's inspector, or null with `inspectorError` set. */
  inspectorUrl: string | null;
  inspectorError?: string;
  /** True in script mode: the process is paused until a debugger runs it. */
  waiting: boolean;
  /** Script mode, every process but the first: it profiles itself (a worker-profile report follows at exit). */
  inProcess?: boolean;
}

export interface ListeningReport {
  type: 'listening';
  pid: number;
  port: number;
  address: string;
}

export interface ListenErrorReport {
  type: 'listen-error';
  pid: number;
  code: string;
  port: number | null;
  message: string;
}

/**
 * Script mode: a worker thread profiled itself (in-process session, started when the worker started)
 * and wrote its profile at exit — a remote Profiler.stop cannot reach a worker that is shutting down.
 */
export interface WorkerProfileReport {
  type: 'worker-profile';
  pid: number;
  threadId: number;
  /** The worker's main script, when known. */
  script: string | null;
  path: string;
  /** A process's main thread (threadId 0) in script mode: its command line after `node`. */
  argv?: string[];
}

/**
 * The routes a framework registered on the server that just listened (written just before its
 * `listening` report), so the load can be offered a path the app serves. Express only (NestJS on Express
 * included); see core/routes/expressRoutes.ts.
 */
export interface RoutesReport extends RouteTable {
  type: 'routes';
  pid: number;
  port: number;
}

/**
 * Script mode: the process left the preload's `inspector.waitForDebugger()` and runs the program. The
 * debugger's Runtime.runIfWaitingForDebugger can reach the process before it starts waiting (after its
 * `process` report, before the wait: a process descheduled there); it is then lost and the wait never
 * ends. This report is how Hotpath knows its run was not lost (see target/resume.ts).
 */
export interface ResumedReport {
  type: 'resumed';
  pid: number;
}

export type TargetReport = ProcessReport | ListeningReport | ListenErrorReport | WorkerProfileReport | RoutesReport | ResumedReport;

export function parseReportLine(line: string): TargetReport | undefined {
  try {
    const value = JSON.parse(line);
    return value && typeof value.type === 'string' && typeof value.pid === 'number' ? value : undefined;
  } catch {
    return undefined; // a partial line still being written: read again later
  }
}
