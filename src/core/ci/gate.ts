/** Which runs a CI gate applies to, and its decision on each. */
import type { MetricComparisonSet } from '../stats/metrics';
import type { RunResultAny } from '../report';
import { evaluateGate, type GatePolicy, type GateResult } from './policy';
import type { GatedResult } from './summary';

/** verify, compare, a startup comparison (`--node A --node B`, `--base`), a benchmark against `--baseline`. */
export function gatedResult(r: RunResultAny): GatedResult | undefined {
  if (r.kind === 'verify' || r.kind === 'compare' || r.kind === 'startup-compare') return r;
  if (r.kind === 'bench' && r.comparison?.kind === 'baseline') return r;
  return undefined;
}

export function comparisonOf(r: GatedResult): MetricComparisonSet {
  return r.comparison!;
}

/** The gate's decision on a gated run (a verify's new leak is a regression too). */
export function gateOf(r: GatedResult, policy: GatePolicy): GateResult {
  const newLeak = r.kind === 'verify' && r.leakComparison?.change === 'new-leak' ? `the heap after full GC is ${r.leakComparison.summary}` : undefined;
  return evaluateGate(comparisonOf(r), policy, { newLeak });
}
