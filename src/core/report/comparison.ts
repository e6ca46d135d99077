/** Comparisons of two sides: the metrics block, the verdict, and what changed per function. */
import type { FunctionDiff, V8Brief } from '../profileDiff/functions';
import type { MetricComparisonSet } from '../stats/metrics';
import { formatMs, formatSignedPoints } from '../../shared/text/numbers';
import { code, type ComparisonBlock, type Inline, line, loc, numText, pct, type Section, section, table, text, type VerdictFact } from './model';

export const VERDICT_WORD = { faster: 'FASTER', slower: 'SLOWER', 'no-significant-change': 'NO SIGNIFICANT CHANGE' } as const;

/** The metrics of a comparison as a block: both sides' geometric means, the change, its interval, the test. */
export function comparisonBlock(c: MetricComparisonSet, sides: [string, string], layout: ComparisonBlock['layout'] = 'table'): ComparisonBlock {
  return {
    kind: 'comparison', sides, level: c.metricConfidenceLevel, method: c.method, correction: c.correction, layout,
    metrics: Object.entries(c.metrics).map(([key, m]) => ({
      key, label: m.label, unit: m.unit, a: m.a.geomean, b: m.b.geomean, ratio: m.ratio, ciLow: m.ciLow, ciHigh: m.ciHigh,
      pValue: m.pValue, inVerdict: m.inVerdict, significant: m.significant, change: m.change,
    })),
  };
}

export function verdictFact(c: MetricComparisonSet & { summary: string }, sides: [string, string]): VerdictFact {
  return { verdict: c.verdict, summary: c.summary, sides };
}

/** `Verdict: FASTER — req/s +31.2% (…) — faster (req/s moved)` (the summary is Hotpath's: metric labels and numbers). */
export function verdictLine(c: Pick<MetricComparisonSet, 'verdict'> & { summary: string }): Inline {
  return ['Verdict: ', VERDICT_WORD[c.verdict], ' — ', c.summary];
}

const fnName = (f: Pick<FunctionDiff, 'function'>) => code(f.function || '(anonymous)');
const where = (f: Pick<FunctionDiff, 'file' | 'line'>) => loc(f.file, f.line);
const tierOf = (v: V8Brief | null) => (v ? `${v.tier}${v.deopts ? ` ${v.deopts}×deopt` : ''}` : '');

/** The functions whose share moved most, both ways (a line saying none did, when none did). */
export function functionDiffBlock(functions: FunctionDiff[], limit: number, names: [string, string] = ['A', 'B']) {
  const changed = functions.filter((f) => f.change !== 'same');
  const shown = changed.slice(0, limit);
  if (!shown.length) return text([line('(no function\'s share of the time changed by 0.1 points or more)', 2)]);
  return table([['function', 'Function'], ['location', 'Location'], ['selfPctBefore', `${names[0]} self`], ['selfPctAfter', `${names[1]} self`], ['deltaPct', 'Δ share'], ['deltaMs', 'Δ ms'], ['v8', `V8 ${names[0]} → ${names[1]}`]],
    shown.map((f) => {
      const same = tierOf(f.v8Before) === tierOf(f.v8After);
      const v8 = f.v8Changes ? code(f.v8Changes) : code(same ? tierOf(f.v8After) : `${tierOf(f.v8Before) || '—'} → ${tierOf(f.v8After) || '—'}`);
      return {
        cells: [[fnName(f), f.change === 'new' ? ' (new)' : f.change === 'gone' ? ' (gone)' : ''], where(f), pct(f.selfPctBefore), pct(f.selfPctAfter),
          numText(f.deltaPct, formatSignedPoints(f.deltaPct)), numText(f.deltaMs, `${f.deltaMs >= 0 ? '+' : '−'}${formatMs(Math.abs(f.deltaMs))}`), v8],
      };
    }),
    { indent: 2, ...(changed.length > limit ? { more: { count: changed.length - limit } } : {}) });
}

/**
 * "sumX (lib/sum.js:3): TurboFan → Maglev, +1 deopt (wrong map)" for the app's and its dependencies'
 * functions V8 treated differently (Node's own code flips tiers from run to run; the JSON has it all).
 */
export function v8ChangesSection(functions: FunctionDiff[], limit: number, names: [string, string] = ['A', 'B']): Section | undefined {
  const changed = functions.filter((f) => f.v8Changes && (f.category === 'user' || f.category === 'dependency')).slice(0, limit);
  if (!changed.length) return undefined;
  return section('diff', [text(changed.map((f) => line([fnName(f), ' (', where(f), '): ', code(f.v8Changes!)], 2)), `V8 changes per function (${names[0]} → ${names[1]})`)]);
}
