/**
 * The status bar item as a pure function of one state value (no vscode import, unit-tested in plain Node).
 * The adapter in statusBar.ts only copies the result onto the item.
 */
import type { Comparison } from '../../core/stats/compare';
import { signedPercent } from '../../core/stats/formatComparison';
import { formatBytes, formatInt, formatMs, labelText, mdCode, mdEscape } from '../../shared/text';
import { ownMatters } from '../../core/attribution/rank';
import type { WorkflowStage } from '../../core/workflow/progress';

export type StatusState =
  | { kind: 'idle' }
  | { kind: 'running'; title: string; stage: WorkflowStage; requestsPerSecond?: number }
  | { kind: 'profiled'; function: string; selfPct: number; ownPct: number; ownDetail?: string; file: string; line: number | null; profilePath: string; loopP99Ms?: number; blockedBy?: string }
  | { kind: 'leak'; name: string; verdict: 'growing' | 'stable'; bytesPerRequest: number; ciLow: number; ciHigh: number; requests: number; comparison?: string; site?: { function: string; file: string; line: number | null } }
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
  starting: 'Starting', warmup: 'Warming up', measuring: 'Measuring', profiling: 'Profiling', analyzing: 'Analyzing', stopping: 'Stopping',
};

export const rps = (n: number): string => formatInt(n);
const ms = (n: number): string => formatMs(n).replace(/ ms$/, '');
export { mdCode, mdEscape };

/** Profile text in a status bar label: one line, and `$(name)` would render as an icon (see labelText). */
export const noIcons = labelText;

function pctOrDash(p: number | null): string {
  return p === null ? '—' : signedPercent(p);
}

function renderVerified(s: Extract<StatusState, { kind: 'verified' }>): RenderedStatus {
  const c = s.comparison;
  const r = c.requestsPerSecond;
  const p = c.p99Ms;
  const change = r.diffPct === null ? '' : ` ${signedPercent(r.diffPct)} vs baseline`;
  const tone: StatusTone = c.verdict === 'faster' ? 'faster' : c.verdict === 'slower' ? 'slower' : 'neutral';
  const note = c.verdict === 'no-significant-change' ? ' (no significant change)' : '';
  const level = `${Math.round(c.confidenceLevel * 100)}%`;
  const ci = r.ciLowPct !== null && r.ciHighPct !== null ? `${level} CI ${signedPercent(r.ciLowPct, 1)} … ${signedPercent(r.ciHighPct, 1)}` : 'not testable (too few runs)';
  const lines = [
    `**Hotpath: verify vs baseline "${mdEscape(s.name)}"** — ${mdEscape(c.verdict === 'no-significant-change' ? 'no significant change' : c.verdict)}`,
    '',
    '| | baseline | now | change |',
    '|---|---:|---:|---:|',
    `| req/s | ${rps(r.baselineMean)} | ${rps(r.currentMean)} | ${pctOrDash(r.diffPct)} |`,
    `| p99 latency | ${ms(p.baselineMean)} ms | ${ms(p.currentMean)} ms | ${pctOrDash(p.diffPct)} |`,
    '',
    `req/s change: ${ci}; p = ${r.pValue === null ? '—' : r.pValue < 0.001 ? '< 0.001' : r.pValue.toFixed(3)} (${mdEscape(c.method)}, n = ${c.n.baseline} vs ${c.n.current} runs).`,
    ...(s.warnings.length ? ['', ...s.warnings.map((w) => `$(warning) ${mdEscape(w)}`)] : []),
    '',
    '[$(refresh) Verify again](command:hotpath.verifyAgainstBaseline) · [$(flame) Open flamegraph](command:hotpath.showFlamegraph) · [$(go-to-file) Open baseline](command:hotpath.baselines.open)',
  ];
  return { text: `$(pulse) ${rps(r.currentMean)} req/s${change}${note}`, tooltip: lines.join('\n'), tone, command: 'hotpath.verifyAgainstBaseline' };
}

/** `+3.1 KB/req` (the status bar's short form of a growth rate). */
function perRequest(bytes: number): string {
  return `${bytes >= 0 ? '+' : ''}${formatBytes(bytes)}/req`;
}

function renderLeak(s: Extract<StatusState, { kind: 'leak' }>): RenderedStatus {
  const growing = s.verdict === 'growing';
  const text = s.comparison ? `$(pulse) heap ${noIcons(s.comparison.replace(/\/request/g, '/req'))}` : `$(pulse) heap ${growing ? `growing ${perRequest(s.bytesPerRequest)}` : 'stable'}`;
  const site = s.site ? `\n\nObjects that stay are allocated in ${mdCode(s.site.function)} at ${mdEscape(s.site.file)}${s.site.line ? `:${s.site.line}` : ''}.` : '';
  const tooltip = `**Hotpath leak check "${mdEscape(s.name)}"** — ${growing ? 'growing' : 'stable'}\n\nHeap after full GC: ${perRequest(s.bytesPerRequest)} (95% CI ${perRequest(s.ciLow)} … ${perRequest(s.ciHigh)}) over ${formatInt(s.requests)} requests.${s.comparison ? `\n\nCompared with the previous check: ${mdEscape(s.comparison)}.` : ''}${site}\n\n[$(refresh) Check again](command:hotpath.checkForLeaks)`;
  return { text, tooltip, tone: growing ? 'slower' : s.comparison?.startsWith('stable now') ? 'faster' : 'neutral', command: 'hotpath.checkForLeaks' };
}

export function renderStatus(state: StatusState): RenderedStatus {
  switch (state.kind) {
    case 'idle':
      return { text: '$(pulse) Hotpath', tooltip: 'Hotpath: [Profile with Load](command:hotpath.profileWithLoad) · [Establish Baseline](command:hotpath.establishBaseline)', tone: 'neutral', command: 'hotpath.profileWithLoad' };
    case 'running': {
      const live = state.requestsPerSecond !== undefined ? ` ${rps(state.requestsPerSecond)} req/s` : '';
      return { text: `$(loading~spin) ${STAGE_LABEL[state.stage]}…${live}`, tooltip: `${mdEscape(state.title)}: ${STAGE_LABEL[state.stage].toLowerCase()}. Cancel from the progress notification.`, tone: 'neutral' };
    }
    case 'profiled': {
      // Own cost (self plus the dependency, Node and native code it calls) is what a change can remove.
      const own = ownMatters(state);
      const share = own ? `${state.ownPct.toFixed(1)}% own` : `${state.selfPct.toFixed(1)}% self`;
      const loop = state.loopP99Ms !== undefined ? ` · loop p99 ${formatMs(state.loopP99Ms)}` : '';
      const loopTip = state.loopP99Ms !== undefined ? `\n\n**Event loop**: p99 delay ${formatMs(state.loopP99Ms)}${state.blockedBy ? ` — held longest by ${mdCode(state.blockedBy)}` : ''}` : '';
      return {
        text: `$(flame) ${noIcons(labelText(state.function))} ${share}${loop}`,
        tooltip: `**Hottest function**: ${mdCode(state.function)} — ${state.ownPct.toFixed(1)}% own, ${state.selfPct.toFixed(1)}% self time${state.ownDetail ? ` (${mdEscape(state.ownDetail)})` : ''}\n\n${mdEscape(state.file)}${state.line ? `:${state.line}` : ''}${loopTip}\n\n[$(flame) Open flamegraph](command:hotpath.showFlamegraph) · [$(pin) Establish baseline](command:hotpath.establishBaseline)`,
        tone: 'neutral', command: 'hotpath.showFlamegraph',
      };
    }
    case 'baseline':
      return {
        text: `$(pulse) ${rps(state.requestsPerSecond)} req/s baseline`,
        tooltip: `**Baseline "${mdEscape(state.name)}"**: ${rps(state.requestsPerSecond)} req/s, p99 ${ms(state.p99Ms)} ms (mean of ${state.runs} runs)\n\n[$(check) Verify against it](command:hotpath.verifyAgainstBaseline) · [$(go-to-file) Open baseline](command:hotpath.baselines.open)`,
        tone: 'neutral', command: 'hotpath.verifyAgainstBaseline',
      };
    case 'verified':
      return renderVerified(state);
    case 'leak':
      return renderLeak(state);
  }
}
