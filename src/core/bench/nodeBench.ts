/**
 * node:bench (Node 26.9+, `--experimental-bench`) results from its JSON reporter: newline-delimited
 * events, of which `bench:complete` carries a benchmark's samples (`operations` per sample and
 * `duration_ns`, a string). Per benchmark: mean ns per operation over all samples, p99 of the
 * samples' per-operation times, and a 95% margin of error of the per-sample times. Pure.
 */
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { mean, sampleVariance } from '../stats/descriptive';
import type { BenchProcessResults, BenchTaskRun } from './reports';

interface CompleteEvent {
  type: 'bench:complete';
  data: { name: string; namePath?: string[]; samples?: Array<{ operations: number; duration_ns: string | number }>; error?: { message?: string } };
}

/** Linear-interpolated quantile of sorted values. */
export function quantile(sorted: readonly number[], q: number): number {
  if (!sorted.length) return NaN;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

export function parseNodeBenchReport(text: string): BenchProcessResults {
  const tasks: BenchTaskRun[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    let event: CompleteEvent;
    try { event = JSON.parse(line); } catch { continue; }
    if (event.type !== 'bench:complete') continue;
    const d = event.data;
    const name = d.namePath?.length ? d.namePath.join(' › ') : d.name;
    const samples = (d.samples ?? []).filter((s) => s.operations > 0);
    if (d.error || !samples.length) {
      tasks.push({ name, meanNs: 0, p99Ns: 0, samples: 0, rmePct: null, error: d.error?.message ?? 'no samples' });
      continue;
    }
    const perOp = samples.map((s) => Number(s.duration_ns) / s.operations);
    const totalNs = samples.reduce((sum, s) => sum + Number(s.duration_ns), 0);
    const ops = samples.reduce((sum, s) => sum + s.operations, 0);
    const m = mean(perOp);
    const rmePct = perOp.length > 1 && m > 0 ? (tQuantile(0.975, perOp.length - 1) * Math.sqrt(sampleVariance(perOp) / perOp.length) / m) * 100 : null;
    const sorted = [...perOp].sort((a, b) => a - b);
    tasks.push({ name, meanNs: totalNs / ops, p99Ns: quantile(sorted, 0.99), p50Ns: quantile(sorted, 0.5), samples: samples.length, rmePct });
  }
  return { harness: 'node:bench', harnessVersion: null, tasks, floorNs: null };
}
