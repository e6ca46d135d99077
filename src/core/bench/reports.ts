/**
 * What the benchmark preload, running inside a benchmark file's process, hands back to Hotpath: one
 * JSON file per process (rewritten after every `bench.run()`), named in a `bench-results` report line.
 */
import type { V8Tier } from '../v8/types';

/** Names of the tasks to run (JSON array); the others are removed before `run()`. */
export const BENCH_TASKS_ENV = 'HOTPATH_BENCH_TASKS';
/** `0`: do not measure the empty-function floor. */
export const BENCH_FLOOR_ENV = 'HOTPATH_BENCH_FLOOR';
/** Where the results file goes. */
export const BENCH_OUT_ENV = 'HOTPATH_BENCH_OUT';
export const BENCH_PRELOAD_FILE_NAME = 'hotpath-bench-preload.js';
/** The global the preload keeps the task functions on, for V8's view of them (Symbol.for key). */
export const BENCH_FUNCTIONS_KEY = 'hotpath.bench.functions';

export interface BenchTaskRun {
  name: string;
  /** Mean time per operation in this process, ns. */
  meanNs: number;
  p99Ns: number;
  /** Median time per operation (robust to the machine's hiccups), ns; null when the harness gives none. */
  p50Ns?: number | null;
  /** Measured samples (iterations for tinybench, batches for node:bench). */
  samples: number;
  /** The harness's own relative margin of error of the mean within this process, %. */
  rmePct: number | null;
  error?: string;
  /** The task function's tier when measuring began (after the warm-up) and when it ended. */
  tierAtStart?: V8Tier;
  tierAtEnd?: V8Tier;
}

export interface BenchProcessResults {
  harness: 'tinybench' | 'node:bench';
  harnessVersion: string | null;
  tasks: BenchTaskRun[];
  /** An empty task measured the same way right after (for at most 100 ms): what the harness itself costs per call, ns. */
  floorNs: number | null;
  /** The empty task's median per call, ns. */
  floorP50Ns?: number | null;
  /** The empty task's 75th percentile per call, ns: how far an empty call's typical times spread. */
  floorP75Ns?: number | null;
  /**
   * The process called process.exit: with what code, and whether the harness was calling a task (while
   * adding it, or in `bench.run()`) and which one, when known. A task that exits the process ends the
   * benchmark before anything is measured.
   */
  exit?: BenchExitCall | null;
}

export interface BenchExitCall {
  code: number;
  duringRun: boolean;
  task: string | null;
}
