import type { CancellationToken } from '../common/cancellation';
import type { Logger } from '../common/logger';
import type { LoadOptions, LoadOptionsInput } from '../load/options';
import { resolveLoadOptions } from '../load/options';
import type { LoadResult } from '../load/result';
import { checkNodeVersion, type RunnableSide } from '../measure/scriptRun';
import { processCpuMs } from '../measure/processCpu';
import { markCpu, otherCpuCores } from '../measure/otherCpu';
import type { ProcessReport } from '../target/reports';
import { measure } from './loadPhases';
import { resolveRequest, warmUpChecked, type RequestChooser } from './requestPath';
import { withHttpTarget, type TargetCommand } from './runningTarget';
import { neverCancelled } from '../common/cancellation';
import { silentLogger } from '../common/logger';
import type { WorkflowDeps } from './profileWithLoad';
import type { ProgressSink } from './progress';

export interface MeasuredRuns {
  results: LoadResult[];
  /** Per run: CPU time the app process used during the measured load, ms (null where unreadable). */
  appCpuMs: Array<number | null>;
  /** Per run: other programs' CPU use during the measured load, cores (null where unknown). */
  otherCpuCores: Array<number | null>;
  loadOptions: LoadOptions;
  /** The app process as it reported itself in the last run (node version, NODE_ENV). */
  process: ProcessReport;
  port: number;
}

export interface HttpRun {
  result: LoadResult;
  /** CPU time the app process (all its threads) used during the measured load, ms; null when unreadable. */
  appCpuMs: number | null;
  /** Other programs' average CPU use during the measured load, cores; null when unknown. */
  otherCpuCores: number | null;
  process: ProcessReport;
  port: number;
  loadOptions: LoadOptions;
}

export interface HttpRunContext {
  token: CancellationToken;
  logger: Logger;
  progress: ProgressSink;
  /** e.g. "run 2 of 3" */
  label: string;
  /** Seconds of the whole command done before this run, and the whole command's seconds. */
  offsetSeconds: number;
  totalSeconds: number;
  /** The front end's say in the request path when the load names none (VS Code's quick pick). */
  chooser?: RequestChooser;
}

/**
 * One measured HTTP run: a fresh app process, a warm-up (discarded), one measured load, the app
 * stopped. A fresh process per run makes runs independent observations (JIT decisions, heap layout and
 * GC timing differ between processes, and that variation belongs in the sample). When the side names
 * the Node version it must run on, the app's own report is checked against it.
 */
export function measureHttpRun(spec: TargetCommand & Partial<Pick<RunnableSide, 'label' | 'expectedNodeVersion'>>, load: LoadOptionsInput, ctx: HttpRunContext): Promise<HttpRun> {
  return withHttpTarget(spec, ctx, async (target, ready) => {
    if (spec.expectedNodeVersion) checkNodeVersion({ label: spec.label ?? ctx.label, command: spec.command, cwd: spec.cwd, env: spec.env ?? {}, expectedNodeVersion: spec.expectedNodeVersion }, ready.process.nodeVersion);
    // No path given: the app's announced URL or routes (or the user's pick); a 404-only warm-up stops here.
    const { options, offer } = await resolveRequest(load, target, ready, { chooser: ctx.chooser, logger: ctx.logger, token: ctx.token, progress: ctx.progress });
    const phase = { token: ctx.token, logger: ctx.logger, progress: ctx.progress, label: ctx.label, totalSeconds: ctx.totalSeconds };
    const loadOptions = await warmUpChecked(options, { ...phase, offsetSeconds: ctx.offsetSeconds }, { offer, chooser: ctx.chooser });
    const cpuBefore = await processCpuMs(ready.process.pid);
    const machineBefore = markCpu();
    const result = await measure('measuring', loadOptions, { ...phase, offsetSeconds: ctx.offsetSeconds + loadOptions.warmupSeconds });
    const machineAfter = markCpu();
    const cpuAfter = await processCpuMs(ready.process.pid);
    const appCpuMs = cpuBefore !== null && cpuAfter !== null && cpuAfter > cpuBefore ? cpuAfter - cpuBefore : null;
    return { result, appCpuMs, otherCpuCores: otherCpuCores(machineBefore, machineAfter, appCpuMs), process: ready.process, port: ready.port, loadOptions };
  });
}

/**
 * K independent runs without the profiler. Each run starts the app afresh, warms it up (discarded)
 * and measures once, so the runs are independent observations — a statistic over them is honest,
 * unlike one over requests or seconds of a single process.
 */
export async function measureRuns(spec: TargetCommand, load: LoadOptionsInput, runs: number, deps: WorkflowDeps = {}): Promise<MeasuredRuns> {
  const token = deps.token ?? neverCancelled;
  const logger = deps.logger ?? silentLogger;
  const progress = deps.onProgress ?? (() => {});
  const checked = resolveLoadOptions(load, { port: spec.port ?? 1 });
  const perRun = checked.warmupSeconds + checked.durationSeconds;
  const results: LoadResult[] = [];
  const appCpuMs: Array<number | null> = [];
  const otherCores: Array<number | null> = [];
  let last: HttpRun | undefined;
  // The request the first run settled on (chosen, announced, or changed after a 404) is every run's.
  let request = load;
  for (let i = 0; i < runs; i++) {
    const label = `run ${i + 1} of ${runs}`;
    progress({ stage: 'starting', message: `Starting the app (${label})`, fraction: (i * perRun) / (runs * perRun) });
    last = await measureHttpRun(spec, request, { token, logger, progress, label, offsetSeconds: i * perRun, totalSeconds: runs * perRun, chooser: deps.chooseRequest });
    if (request.url === undefined) request = { ...request, path: last.loadOptions.path, method: last.loadOptions.method };
    results.push(last.result);
    appCpuMs.push(last.appCpuMs);
    otherCores.push(last.otherCpuCores);
  }
  return { results, appCpuMs, otherCpuCores: otherCores, loadOptions: last!.loadOptions, process: last!.process, port: last!.port };
}
