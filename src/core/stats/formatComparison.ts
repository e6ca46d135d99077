import { formatSignedPct } from '../../shared/text/numbers';
import type { MetricComparison, Verdict } from './compare';

const MINUS = '\u2212';

/** "+31.2%", "−22%": the shared formatter (a real minus sign, one decimal below 10% unless `digits` says otherwise). */
export const signedPercent = formatSignedPct;

function signedNumber(value: number, unit: string): string {
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 1 ? 1 : 3;
  const text = Math.abs(value).toLocaleString('en-US', { maximumFractionDigits: digits });
  if (Number(text.replace(/,/g, '')) === 0) return `0${unit}`;
  return `${value < 0 ? MINUS : '+'}${text}${unit}`;
}

/** The change as % when the baseline allows it, else in absolute units. */
function change(m: MetricComparison, unit: string, digits?: number): string {
  return m.diffPct === null ? signedNumber(m.diff, unit) : signedPercent(m.diffPct, digits);
}

function interval(m: MetricComparison, unit: string, level: string): string {
  if (m.ciLowPct !== null && m.ciHighPct !== null) {
    return `${level} CI ${signedPercent(m.ciLowPct, 1)} … ${signedPercent(m.ciHighPct, 1)}`;
  }
  if (m.ciLow !== null && m.ciHigh !== null) return `${level} CI ${signedNumber(m.ciLow, unit)} … ${signedNumber(m.ciHigh, unit)}`;
  return 'untested';
}

const VERDICT_TEXT: Record<Verdict, string> = {
  faster: 'faster',
  slower: 'slower',
  'no-significant-change': 'no significant change',
};

/** One line, e.g. "+31.2% req/s (95% CI +27.0% … +35.4%), p99 −22% — faster". */
export function formatSummary(input: {
  requestsPerSecond: MetricComparison;
  p99Ms: MetricComparison;
  verdict: Verdict;
  tested: boolean;
  level: string;
}): string {
  const { requestsPerSecond: rps, p99Ms: p99, verdict, tested, level } = input;
  const throughput = `${change(rps, ' req/s', 1)}${rps.diffPct === null ? '' : ' req/s'} (${interval(rps, ' req/s', level)})`;
  const latencyNote = !tested ? ' (untested)' : p99.significant ? '' : ' (not significant)';
  const latency = `p99 ${change(p99, ' ms')}${latencyNote}`;
  const verdictText = tested ? VERDICT_TEXT[verdict] : 'no significant change (too few runs to test)';
  return `${throughput}, ${latency} \u2014 ${verdictText}`;
}
