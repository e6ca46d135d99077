import type { LoadOptions, LoadOptionsInput } from '../load/options';
import { resolveLoadOptions } from '../load/options';
import type { LoadResult } from '../load/result';
import type { ProcessReport } from '../target/reports';
import { measure } from './loadPhases';
import { resolveRequest, warmUpChecked } from './requestPath';
import { withHttpTarget, type TargetCommand } from './runningTarget';
import { neverCancelled } from '../common/cancellation';
import { silentLogger } from '../common/logger';
import type { WorkflowDeps } from './profileWithLoad';

export interface MeasuredRuns {
  results: LoadResult[];
  loadOptions: LoadOptions;
  /** The app process as it reported itself in the last run (node version, NODE_ENV). */
  process: ProcessReport;
  port: number;
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
  let last: { process: ProcessReport; port: number; loadOptions: LoadOptions } | undefined;
  // The request the first run settled on (chosen, announced, or changed after a 404) is every run's.
  let request = load;
  for (let i = 0; i < runs; i++) {
    const label = `run ${i + 1} of ${runs}`;
    progress({ stage: 'starting', message: `Starting the app (${label})`, fraction: (i * perRun) / (runs * perRun) });
    const result = await withHttpTarget(spec, { token, logger }, async (target, ready) => {
      const { options, offer } = await resolveRequest(request, target, ready, { chooser: deps.chooseRequest, logger, token, progress });
      const ctx = { token, logger, progress, label, totalSeconds: runs * perRun };
      const loadOptions = await warmUpChecked(options, { ...ctx, offsetSeconds: i * perRun }, { offer, chooser: deps.chooseRequest });
      if (request.url === undefined) request = { ...request, path: loadOptions.path, method: loadOptions.method };
      const measured = await measure('measuring', loadOptions, { ...ctx, offsetSeconds: i * perRun + loadOptions.warmupSeconds });
      last = { process: ready.process, port: ready.port, loadOptions };
      return measured;
    });
    results.push(result);
  }
  return { results, ...last! };
}
