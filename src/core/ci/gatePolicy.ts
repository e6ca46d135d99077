/**
 * The gate's policy as the command line sets it. Its own module, free of the statistics: argument
 * parsing needs it on every command, and importing it from policy.ts loaded the t-distribution's
 * packages (@stdlib, 130 of them) for `hotpath --help` (bench/suites/cli.js lists what each command runs).
 */
export type FailOn = 'slower' | 'inconclusive';

export interface GatePolicy {
  /** Which outcomes fail the run (`--fail-on slower,inconclusive`; `never`: none). Default: slower. */
  failOn: ReadonlySet<FailOn>;
  /** Fail only when the interval shows a slowdown larger than this many % (`--max-regression`). */
  maxRegressionPct?: number;
  /** A change smaller than this many % is worded as too small to matter (`--min-effect`). */
  minEffectPct?: number;
}

export const DEFAULT_POLICY: GatePolicy = { failOn: new Set<FailOn>(['slower']) };
