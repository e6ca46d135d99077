/** What the editor shows on a benchmark task's line after `hotpath bench`. Pure, editor-neutral. */
import { formatNs, formatPct, formatRate } from '../../shared/text/numbers';
import type { BenchTask } from './aggregate';

const SHORT: Record<string, string> = {
  OPTIMIZED_AWAY: 'measures nothing (optimised away?)', UNDER_A_FEW_NS: 'under a few ns', DEOPTIMIZED_DURING_MEASUREMENT: 'deoptimised while measured',
  OPTIMIZED_DURING_MEASUREMENT: 'warm-up too short', UNSTABLE: 'unstable', TASK_FAILED: 'failed',
};

/** `48,210 ops/s ±1.2% · 20.7 µs/op · p99 41.0 µs · TurboFan · ⚠ unstable` */
export function benchTaskLabel(t: BenchTask): string {
  const parts = [`${formatRate(t.opsPerSec, 'ops/s')}${t.rme !== null ? ` ±${formatPct(t.rme)}` : ''}`, `${formatNs(t.meanNs)}/op`, `p99 ${formatNs(t.p99Ns)}`];
  if (t.v8) parts.push(t.v8.tier === 'unknown' ? 'tier ?' : t.v8.tier);
  if (t.warnings.length) parts.push(`⚠ ${t.warnings.map((w) => SHORT[w.code] ?? w.code).join(', ')}`);
  return parts.join(' · ');
}
