import Table from 'cli-table3';
import type { Comparison, MetricResult } from '../core/stats/metrics';
import { percentLevel } from '../core/stats/metrics';
import { ratioPercent } from '../core/stats/formatComparison';
import { formatInt, formatMs } from '../shared/text/numbers';

const plain = { chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ' }, style: { head: [] as string[], border: [] as string[], 'padding-left': 0, 'padding-right': 0 } };

/** A metric's value for people: req/s as an integer, times as durations. */
export function metricValue(m: Pick<MetricResult, 'unit'>, value: number): string {
  return m.unit === 'ms' ? formatMs(value) : `${formatInt(value)}${m.unit === 'req/s' ? '' : ` ${m.unit}`}`;
}

export function pValueText(p: number | null): string {
  return p === null ? '—' : p < 0.001 ? '<0.001' : p.toFixed(3);
}

export const VERDICT_WORD = { faster: 'FASTER', slower: 'SLOWER', 'no-significant-change': 'NO SIGNIFICANT CHANGE' } as const;

/**
 * The metrics of a comparison as a table: both sides' geometric means, the change, its interval and
 * the (Bonferroni-adjusted) p-value, then how it was tested and corrected.
 */
export function comparisonTable(c: Comparison, sideNames: [string, string]): string {
  const level = percentLevel(c.metricConfidenceLevel);
  const table = new Table({ ...plain, head: ['', sideNames[0], sideNames[1], 'change', `${level} CI`, 'p', ''] });
  for (const m of Object.values(c.metrics)) {
    const ci = m.ciLow === null || m.ciHigh === null ? 'untested' : `${ratioPercent(m.ciLow, 1)} … ${ratioPercent(m.ciHigh, 1)}`;
    const note = !m.inVerdict ? '(not in verdict)' : m.significant ? `significant, ${m.change}` : 'not significant';
    table.push([`  ${m.label}`, metricValue(m, m.a.geomean), metricValue(m, m.b.geomean), ratioPercent(m.ratio, 1), ci, pValueText(m.pValue), note]);
  }
  return `${table.toString()}\n  ${c.method}\n  ${c.correction}\n`;
}
