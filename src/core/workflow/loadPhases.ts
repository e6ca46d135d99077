import type { CancellationToken } from '../common/cancellation';
import type { Logger } from '../common/logger';
import type { LoadOptions } from '../load/options';
import type { LoadResult } from '../load/result';
import { runLoad } from '../load/runner';
import type { ProgressSink, WorkflowStage } from './progress';
import { formatRate } from '../../shared/text/numbers';

export interface PhaseContext {
  token: CancellationToken;
  logger: Logger;
  progress: ProgressSink;
  /** Seconds of the whole command done before this phase, and the whole command's seconds. */
  offsetSeconds: number;
  totalSeconds: number;
  /** e.g. "run 2 of 3" */
  label?: string;
}

const VERBS: Partial<Record<WorkflowStage, string>> = { warmup: 'Warming up', profiling: 'Profiling under load', measuring: 'Measuring' };

/**
 * Runs one load phase as its own autocannon run. Warm-up is a separate run whose result is dropped
 * (rather than autocannon's built-in warm-up) so the profiler can start exactly between the two.
 */
function phase(stage: WorkflowStage, seconds: number, options: LoadOptions, ctx: PhaseContext): Promise<LoadResult> {
  const verb = `${VERBS[stage] ?? stage}${ctx.label ? ` (${ctx.label})` : ''}`;
  ctx.progress({ stage, message: verb, fraction: ctx.offsetSeconds / ctx.totalSeconds });
  return runLoad({ ...options, durationSeconds: seconds, warmupSeconds: 0 }, {
    warmup: stage === 'warmup',
    token: ctx.token,
    logger: ctx.logger,
    onProgress: (p) => ctx.progress({
      stage,
      message: `${verb}: ${formatRate(p.requestsPerSecond)}`,
      fraction: Math.min(1, (ctx.offsetSeconds + p.elapsedSeconds) / ctx.totalSeconds),
      requestsPerSecond: p.requestsPerSecond,
    }),
  });
}

/** The warm-up run; its result (for the route check, never for numbers), or undefined without one. */
export async function warmUp(options: LoadOptions, ctx: PhaseContext): Promise<LoadResult | undefined> {
  return options.warmupSeconds > 0 ? phase('warmup', options.warmupSeconds, options, ctx) : undefined;
}

export function measure(stage: 'measuring' | 'profiling', options: LoadOptions, ctx: PhaseContext): Promise<LoadResult> {
  return phase(stage, options.durationSeconds, options, ctx);
}
