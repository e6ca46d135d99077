/**
 * Per task, over K benchmark processes: the statistics a benchmark expert trusts and the warnings they
 * would give. The sample size is K — independent processes — not the harness's millions of iterations,
 * which share one JIT state, one heap and one stretch of machine load: the interval of the mean time
 * per operation is a t-interval of the per-process means on the log scale (a ratio, never negative).
 * With one process there is nothing else: the harness's own within-run margin is shown and said to be.
 */
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { formatNs, formatPct } from '../../shared/text/numbers';
import { mean, sampleVariance } from '../stats/descriptive';
import { isOptimizedTier } from '../v8/statusBits';
import type { V8FunctionSignals } from '../v8/types';
import type { BenchTaskRun } from './reports';

export interface BenchWarning {
  code: 'OPTIMIZED_AWAY' | 'UNDER_A_FEW_NS' | 'DEOPTIMIZED_DURING_MEASUREMENT' | 'OPTIMIZED_DURING_MEASUREMENT' | 'UNSTABLE' | 'TASK_FAILED';
  message: string;
}

export interface BenchTask {
  name: string;
  /** Operations per second: 1e9 / meanNs. */
  opsPerSec: number;
  opsPerSecCi: { low: number; high: number } | null;
  /** Relative margin of error of the mean, ± % (95%): across processes, or the harness's within one. */
  rme: number | null;
  /** Iterations (tinybench) or batches (node:bench) measured, over all processes. */
  samples: number;
  /** Mean time per operation (geometric mean of the processes' means), ns. */
  meanNs: number;
  meanNsCi: { low: number; high: number } | null;
  p99Ns: number;
  p99NsCi: { low: number; high: number } | null;
  /** Processes that measured it. */
  runs: number;
  /** Per process mean, ns, in order. */
  runMeansNs: number[];
  v8: V8FunctionSignals | null;
  warnings: BenchWarning[];
}

/** A task within this factor of the empty function's cost (or this many ns above it) measures nothing. */
const FLOOR_FACTOR = 1.25;
const FLOOR_MARGIN_NS = 2;
/** Below this per operation, no JS timer resolves anything. */
const FEW_NS = 5;
const UNSTABLE_PCT = 5;

/** Geometric mean and 95% t-interval of positive values (null below two). */
export function logInterval(values: readonly number[]): { center: number; low: number; high: number; halfWidthPct: number } | null {
  if (!values.length) return null;
  const logs = values.map(Math.log);
  const m = mean(logs);
  if (values.length < 2) return null;
  const t = tQuantile(0.975, values.length - 1);
  const se = Math.sqrt(sampleVariance(logs) / values.length);
  return { center: Math.exp(m), low: Math.exp(m - t * se), high: Math.exp(m + t * se), halfWidthPct: (Math.exp(t * se) - 1) * 100 };
}

const geomean = (xs: readonly number[]) => Math.exp(mean(xs.map(Math.log)));

export interface TaskInput {
  name: string;
  runs: BenchTaskRun[];
  /** Empty-function cost of each process that measured one, ns. */
  floorsNs: number[];
  /** The empty function's median per call in each process, ns (compared with the task's median). */
  floorsP50Ns?: number[];
  /** The empty function's 75th percentile per call in each process, ns (the spread of its typical calls). */
  floorsP75Ns?: number[];
  v8: V8FunctionSignals | null;
}

export function aggregateTask(input: TaskInput): BenchTask {
  const ok = input.runs.filter((r) => !r.error && r.meanNs > 0);
  const warnings: BenchWarning[] = [];
  const failed = input.runs.filter((r) => r.error);
  if (failed.length) warnings.push({ code: 'TASK_FAILED', message: `The task failed in ${failed.length} of ${input.runs.length} processes: ${failed[0].error}.` });
  const means = ok.map((r) => r.meanNs);
  const p99s = ok.map((r) => r.p99Ns).filter((x) => x > 0);
  const mi = logInterval(means);
  const pi = logInterval(p99s);
  const meanNs = means.length ? geomean(means) : 0;
  const within = ok.length === 1 ? ok[0].rmePct : null;
  const rme = mi ? mi.halfWidthPct : within;
  const meanNsCi = mi ? { low: mi.low, high: mi.high } : within !== null ? { low: meanNs * (1 - within / 100), high: meanNs * (1 + within / 100) } : null;

  // Medians per call, where the harness gives them: one descheduled stretch on a busy machine moves a
  // mean far, a median hardly; the question is what a typical call costs next to an empty one.
  const p50s = ok.map((r) => r.p50Ns).filter((x): x is number => typeof x === 'number' && x > 0);
  const floorP50s = (input.floorsP50Ns ?? []).filter((x) => x > 0);
  const useMedian = p50s.length === ok.length && p50s.length > 0 && floorP50s.length > 0;
  const typical = useMedian ? geomean(p50s) : meanNs;
  const floor = useMedian ? geomean(floorP50s) : input.floorsNs.length ? geomean(input.floorsNs) : null;
  // A task whose median is within the empty function's own typical spread (up to its 75th percentile)
  // cannot be told from it. Why: per-call times of a few tens of ns cluster on a few clock readings
  // (30 and 40 ns here), so two medians of the same cost can land a cluster apart. A clean-clone run on
  // Node 22 put the empty function's median at 30 ns (75th percentile 40) and the discarded task's at 40
  // in all of its processes (means 35 and 37 ns): above 1.25× the median, not flagged.
  const floorP75s = (input.floorsP75Ns ?? []).filter((x) => x > 0);
  const spread = useMedian && floorP75s.length ? geomean(floorP75s) : 0;
  const near = floor === null ? 0 : Math.max(floor * FLOOR_FACTOR, floor + FLOOR_MARGIN_NS);
  if (typical > 0 && floor !== null && typical <= Math.max(near, spread)) {
    warnings.push({
      code: 'OPTIMIZED_AWAY',
      message: `At ${formatNs(typical)} per call${useMedian ? ' (median)' : ''} this task costs no more than an empty function measured by the same harness in the same process (${formatNs(floor)}${typical > near ? `; a quarter of its calls took ${formatNs(spread)} or more` : ''}): it measures the harness, not the code. V8 likely optimised the work away (its result is never used), or it takes under a few ns. Use the result (add it to a variable you read after the run), give it inputs V8 cannot constant-fold, or do many operations per call.`,
    });
  } else if (meanNs > 0 && meanNs < FEW_NS) {
    warnings.push({ code: 'UNDER_A_FEW_NS', message: `At ${formatNs(meanNs)} per operation this is below what a timer can resolve per call; check that the work is not optimised away (use its result), and batch more operations per sample.` });
  }

  const started = ok.filter((r) => r.tierAtStart && r.tierAtEnd);
  const deopted = started.filter((r) => isOptimizedTier(r.tierAtStart) && !isOptimizedTier(r.tierAtEnd));
  const lateOpt = started.filter((r) => !isOptimizedTier(r.tierAtStart) && isOptimizedTier(r.tierAtEnd));
  const reasons = (input.v8?.deopts ?? []).filter((d) => !d.osr).map((d) => `${d.reason}${d.line ? ` at line ${d.line}` : ''}`);
  if (deopted.length) {
    warnings.push({
      code: 'DEOPTIMIZED_DURING_MEASUREMENT',
      message: `V8 deoptimized the task's function while it was being measured (${deopted[0].tierAtStart} when measuring began, ${deopted[0].tierAtEnd} at the end; ${deopted.length} of ${started.length} processes)${reasons.length ? `: ${[...new Set(reasons)].slice(0, 3).join('; ')}` : ''}. The samples mix optimized and unoptimized code, so the mean describes neither; give the warm-up the same inputs as the measurement (types and object shapes), or fix what deoptimizes it.`,
    });
  } else if (lateOpt.length) {
    warnings.push({
      code: 'OPTIMIZED_DURING_MEASUREMENT',
      message: `The task's function was still ${lateOpt[0].tierAtStart} when measuring began and ${lateOpt[0].tierAtEnd} at the end (${lateOpt.length} of ${started.length} processes): the warm-up was too short, so early samples ran unoptimized. Lengthen the warm-up (tinybench: warmupTime / warmupIterations).`,
    });
  }
  const cv = means.length >= 2 ? Math.sqrt(sampleVariance(means)) / mean(means) : null;
  if ((rme !== null && rme > UNSTABLE_PCT) || (cv !== null && cv > 0.1)) {
    warnings.push({
      code: 'UNSTABLE',
      message: `Results are unstable: the mean is known only to ±${formatPct(rme ?? 0)}${cv !== null ? ` and processes differ by ${formatPct(cv * 100)} (coefficient of variation)` : ''}. Something else is using the CPU, the task allocates enough to trigger GC at random, or its input changes between calls; compare with care, or run more processes (--runs).`,
    });
  }
  return {
    name: input.name,
    opsPerSec: meanNs > 0 ? 1e9 / meanNs : 0,
    opsPerSecCi: meanNsCi ? { low: 1e9 / meanNsCi.high, high: 1e9 / meanNsCi.low } : null,
    rme, samples: ok.reduce((n, r) => n + r.samples, 0),
    meanNs, meanNsCi,
    p99Ns: p99s.length ? geomean(p99s) : 0,
    p99NsCi: pi ? { low: pi.low, high: pi.high } : null,
    runs: ok.length, runMeansNs: means,
    v8: input.v8, warnings,
  };
}
