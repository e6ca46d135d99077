/**
 * The status bar item as a pure function of one state value (no vscode import, unit-tested in plain Node).
 * The adapter in statusBar.ts only copies the result onto the item.
 */
import type { Comparison, MetricResult } from '../../core/stats/metrics';
import { percentLevel } from '../../core/stats/metrics';
import { movedText, ratioPercent, VERDICT_TEXT } from '../../core/stats/formatComparison';
import { formatInt, formatMs, mdCode, mdEscape } from '../../shared/text';
import type { WorkflowStage } from '../../core/workflow/progress';

export type StatusState =
  | { kind: 'idle' }
  | { kind: 'running'; title: string; stage: WorkflowStage; requestsPerSecond?: number }
  | { kind: 'profiled'; function: string; selfPct: number; file: string; line: number | null; profilePath: string }
  | { kind: 'baseline'; name: string; requestsPerSecond: number; p99Ms: number; runs: number; file: string }
  | { kind: 'verified'; name: string; comparison: Comparison; warnings: string[] };

export type StatusTone = 'faster' | 'slower' | 'neutral';

export interface RenderedStatus {
  text: string;
  /** Markdown; may contain command: links (the item's tooltip is trusted for our commands only). */
  tooltip: string;
  tone: StatusTone;
  command?: string;
}

const STAGE_LABEL: Record<WorkflowStage, string> = {
  preparing: 'Preparing', starting: 'Starting', warmup: 'Warming up', measuring: 'Measuring', profiling: 'Profiling', analyzing: 'Analyzing', stopping: 'Stopping',
};

export const rps = (n: number): string => formatInt(n);
const ms = (n: number): string => formatMs(n).replace(/ ms$/, '');
export { mdCode, mdEscape };

/** Profile text in a status bar label: `$(name)` would render as an icon, so break the syntax. */
export function noIcons(text: string): string {
  return text.replace(/\$\(/g, '$\u200b(');
}

/** The comparison's metrics as a Markdown table: both sides' geometric means, the change, its interval. */
export function metricsTable(c: Comparison, sides: [string, string]): string[] {
  const level = percentLevel(c.metricConfidenceLevel);
  const value = (m: MetricResult, v: number) => (m.unit === 'ms' ? `${ms(v)} ms` : rps(v));
  const rows = Object.values(c.metrics).map((m) => {
    const ci = m.ciLow === null || m.ciHigh === null ? 'untested' : `${ratioPercent(m.ciLow, 1)} … ${ratioPercent(m.ciHigh, 1)}`;
    const mark = m.significant ? ' **✓**' : '';
    return `| ${mdEscape(m.label === 'p99' || m.label === 'p50' ? `${m.label} latency` : m.label)}${m.inVerdict ? '' : ' *(info)*'} | ${value(m, m.a.geomean)} | ${value(m, m.b.geomean)} | ${ratioPercent(m.ratio)}${mark} | ${ci} | ${m.pValue === null ? '—' : m.pValue < 0.001 ? '< 0.001' : m.pValue.toFixed(3)} |`;
  });
  return [`| | ${mdEscape(sides[0])} | ${mdEscape(sides[1])} | change | ${level} CI | p |`, '|---|---:|---:|---:|---:|---:|', ...rows];
}

export function verdictText(c: Comparison): string {
  return c.moved.length ? `${VERDICT_TEXT[c.verdict]} (${movedText(c)} moved)` : c.tested ? VERDICT_TEXT[c.verdict] : 'no test (too few runs)';
}

const toneOf = (c: Comparison): StatusTone => (c.verdict === 'faster' ? 'faster' : c.verdict === 'slower' ? 'slower' : 'neutral');

function renderVerified(s: Extract<StatusState, { kind: 'verified' }>): RenderedStatus {
  const c = s.comparison;
  const r = c.metrics.requestsPerSecond;
  const note = c.verdict === 'no-significant-change' ? ' (no significant change)' : '';
  const lines = [
    `**Hotpath: verify vs baseline "${mdEscape(s.name)}"** — ${mdEscape(verdictText(c))}`,
    '',
    ...metricsTable(c, ['baseline', 'now']),
    '',
    `${mdEscape(c.method)}. ${mdEscape(c.correction)}.`,
    ...(s.warnings.length ? ['', ...s.warnings.map((w) => `$(warning) ${mdEscape(w)}`)] : []),
    '',
    '[$(refresh) Verify again](command:hotpath.verifyAgainstBaseline) · [$(flame) Open flamegraph](command:hotpath.showFlamegraph) · [$(go-to-file) Open baseline](command:hotpath.baselines.open)',
  ];
  return { text: `$(pulse) ${rps(r.b.geomean)} req/s ${ratioPercent(r.ratio)} vs baseline${note}`, tooltip: lines.join('\n'), tone: toneOf(c), command: 'hotpath.verifyAgainstBaseline' };
}

export function renderStatus(state: StatusState): RenderedStatus {
  switch (state.kind) {
    case 'idle':
      return { text: '$(pulse) Hotpath', tooltip: 'Hotpath: [Profile with Load](command:hotpath.profileWithLoad) · [Establish Baseline](command:hotpath.establishBaseline)', tone: 'neutral', command: 'hotpath.profileWithLoad' };
    case 'running': {
      const live = state.requestsPerSecond !== undefined ? ` ${rps(state.requestsPerSecond)} req/s` : '';
      return { text: `$(loading~spin) ${STAGE_LABEL[state.stage]}…${live}`, tooltip: `${mdEscape(state.title)}: ${STAGE_LABEL[state.stage].toLowerCase()}. Cancel from the progress notification.`, tone: 'neutral' };
    }
    case 'profiled':
      return {
        text: `$(flame) ${noIcons(state.function)} ${state.selfPct.toFixed(1)}% self`,
        tooltip: `**Hottest function**: ${mdCode(state.function)} — ${state.selfPct.toFixed(1)}% self time\n\n${mdEscape(state.file)}${state.line ? `:${state.line}` : ''}\n\n[$(flame) Open flamegraph](command:hotpath.showFlamegraph) · [$(pin) Establish baseline](command:hotpath.establishBaseline)`,
        tone: 'neutral', command: 'hotpath.showFlamegraph',
      };
    case 'baseline':
      return {
        text: `$(pulse) ${rps(state.requestsPerSecond)} req/s baseline`,
        tooltip: `**Baseline "${mdEscape(state.name)}"**: ${rps(state.requestsPerSecond)} req/s, p99 ${ms(state.p99Ms)} ms (mean of ${state.runs} runs)\n\n[$(check) Verify against it](command:hotpath.verifyAgainstBaseline) · [$(go-to-file) Open baseline](command:hotpath.baselines.open)`,
        tone: 'neutral', command: 'hotpath.verifyAgainstBaseline',
      };
    case 'verified':
      return renderVerified(state);
  }
}
