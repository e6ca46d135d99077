/**
 * Two leak checks compared — a stored one (a baseline, the previous check of the same target, side A
 * of an interleaved comparison) and a new one — so a fixed leak reads "stable now; was +3.1 KB/request".
 * Pure: the inputs are the checks' growth summaries, the output a verdict and one sentence.
 */
import { formatBytes } from '../../shared/text/numbers';

export interface GrowthSummary {
  verdict: 'growing' | 'stable';
  bytesPerRequest: number;
  ciLow: number;
  ciHigh: number;
}

export type GrowthChange =
  /** Was growing, is stable. */
  | 'fixed'
  /** Was stable, is growing. */
  | 'new-leak'
  /** Growing both times; `rate` says whether the rate changed beyond both intervals. */
  | 'still-growing'
  | 'stable';

export interface GrowthComparison {
  change: GrowthChange;
  /** For 'still-growing': 'faster', 'slower' (the intervals do not overlap) or 'same'. */
  rate?: 'faster' | 'slower' | 'same';
  before: GrowthSummary;
  after: GrowthSummary;
  summary: string;
}

/** `+3.1 KB/request`. */
export function growthRate(bytesPerRequest: number): string {
  return `${bytesPerRequest >= 0 ? '+' : ''}${formatBytes(bytesPerRequest)}/request`;
}

export function compareGrowth(before: GrowthSummary, after: GrowthSummary): GrowthComparison {
  const base = { before, after };
  if (before.verdict === 'growing' && after.verdict === 'stable') {
    return { ...base, change: 'fixed', summary: `stable now; was ${growthRate(before.bytesPerRequest)}` };
  }
  if (before.verdict === 'stable' && after.verdict === 'growing') {
    return { ...base, change: 'new-leak', summary: `growing now: ${growthRate(after.bytesPerRequest)} (was stable)` };
  }
  if (before.verdict === 'growing' && after.verdict === 'growing') {
    const rate = after.ciHigh < before.ciLow ? 'slower' : after.ciLow > before.ciHigh ? 'faster' : 'same';
    const how = rate === 'slower' ? 'growing more slowly' : rate === 'faster' ? 'growing faster' : 'still growing';
    return { ...base, change: 'still-growing', rate, summary: `${how}: ${growthRate(after.bytesPerRequest)} (was ${growthRate(before.bytesPerRequest)})` };
  }
  return { ...base, change: 'stable', summary: 'stable, as before' };
}
