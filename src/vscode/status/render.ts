/**
 * The status bar item as a pure function of one state value (no vscode import, unit-tested in plain Node).
 * The adapter in statusBar.ts only copies the result onto the item.
 */
import type { Comparison, MetricResult } from '../../core/stats/metrics';
import { halfWidthText, movedText, percentLevel, ratioPercent, VERDICT_TEXT } from '../../core/stats/formatComparison';
import { formatBytes, formatInt, formatMs, labelText, mdCode, mdEscape } from '../../shared/text';
import { ownMatters } from '../../core/attribution/rank';
import type { WorkflowProgress, WorkflowStage } from '../../core/workflow/progress';

export type StatusState =
  | { kind: 'idle' }
  | { kind: 'running'; title: string; stage: WorkflowStage; requestsPerSecond?: number; interval?: WorkflowProgress['interval'] }
  | { kind: 'profiled'; function: string; selfPct: number; ownPct: number; ownDetail?: string; file: string; line: number | null; profilePath: string; loopP99Ms?: number; blockedBy?: string; thread?: string; threads?: number }
  | { kind: 'leak'; name: string; verdict: 'growing' | 'stable' | 'incomplete'; bytesPerRequest: number; ciLow: number; ciHigh: number; requests: number; comparison?: string; site?: { function: string; file: string; line: number | null }; crash?: LeakCrashStatus }
  | { kind: 'baseline'; name: string; requestsPerSecond: number; p99Ms: number; runs: number; file: string }
  | { kind: 'verified'; name: string; comparison: Comparison; warnings: string[] }
  | { kind: 'compared'; sides: [CompareSideSummary, CompareSideSummary]; comparison: Comparison & { pairs: number; elapsedMs: number; stopReason: string; primary: string }; warnings: string[]; hasFlamegraph: boolean; subject?: 'startup' };

/** A leak check the app did not survive: how it ended, and the heap measured before (kept, shown in the tooltip). */
export interface LeakCrashStatus {
  outOfMemory: boolean;
  /** `exited with code 3`, `killed by SIGABRT`. */
  exit: string;
  message: string;
  rungs: { requests: number; heapUsedBytes: number }[];
}

/** What the status bar says about each side of a comparison (labels are the user's own words). */
export interface CompareSideSummary {
  label: string;
  nodeVersion: string | null;
  gitRev: string | null;
  /** What proves what the side ran: its folder, the file the command starts, the node binary, its dependencies. */
  cwd?: string;
  entry?: string | null;
  nodePath?: string | null;
  dependencies?: string;
}

/** "**A** ran `server.js` in `/tmp/hotpath-base-…` · node `/usr/bin/node` · dependencies: …" — program text in code spans. */
function sideProof(name: string, x: CompareSideSummary): string[] {
  if (x.cwd === undefined) return [];
  const parts = [
    `**${name}** ran ${x.entry ? mdCode(x.entry) : 'a command that names no file'} in ${mdCode(x.cwd)}`,
    ...(x.nodePath ? [`node ${mdCode(x.nodePath)}`] : []),
    ...(x.dependencies ? [`dependencies: ${mdEscape(x.dependencies)}`] : []),
  ];
  return ['', parts.join(' · ')];
}

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

/** Profile text in a status bar label: one line, and `$(name)` would render as an icon (see labelText). */
export const noIcons = labelText;

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
    ...s.warnings.flatMap((w) => ['', `$(warning) ${mdEscape(w)}`]),
    '',
    '[$(refresh) Verify again](command:hotpath.verifyAgainstBaseline) · [$(flame) Open flamegraph](command:hotpath.showFlamegraph) · [$(go-to-file) Open baseline](command:hotpath.baselines.open)',
  ];
  return { text: `$(pulse) ${rps(r.b.geomean)} req/s ${ratioPercent(r.ratio)} vs baseline${note}`, tooltip: lines.join('\n'), tone: toneOf(c), command: 'hotpath.verifyAgainstBaseline' };
}

const STOPPED: Record<string, string> = { target: 'the interval reached its target', budget: 'the time budget ran out', 'max-pairs': 'the pair limit was reached', fixed: 'the set number of pairs was run' };

function renderCompared(s: Extract<StatusState, { kind: 'compared' }>): RenderedStatus {
  const c = s.comparison;
  const [a, b] = s.sides;
  const m = c.metrics[c.primary];
  const note = c.verdict === 'no-significant-change' ? ' (no significant change)' : '';
  const facts = (x: CompareSideSummary) => [x.nodeVersion ? `Node ${x.nodeVersion}` : '', x.gitRev ? x.gitRev.slice(0, 7) : ''].filter((f) => f && !x.label.includes(f)).join(', ');
  const side = (name: string, x: CompareSideSummary) => `**${name}**: ${mdEscape(x.label)}${facts(x) ? ` (${mdEscape(facts(x))})` : ''}`;
  const lines = [
    `**Hotpath: compare${s.subject === 'startup' ? ' startup' : ''}** — ${c.verdict === 'no-significant-change' ? 'no significant change between A and B' : `B ${s.subject === 'startup' ? 'starts' : 'is'} ${VERDICT_TEXT[c.verdict]} than A${c.moved.length ? ` (${mdEscape(movedText(c))} moved)` : ''}`}`,
    '',
    `${side('A', a)} · ${side('B', b)}`,
    ...sideProof('A', a),
    ...sideProof('B', b),
    '',
    ...metricsTable(c, ['A', 'B']),
    '',
    `${c.pairs} interleaved pairs in ${Math.round(c.elapsedMs / 1000)} s; stopped because ${STOPPED[c.stopReason] ?? c.stopReason}. ${mdEscape(c.method)}. ${mdEscape(c.correction)}.`,
    ...s.warnings.flatMap((w) => ['', `$(warning) ${mdEscape(w)}`]),
    '',
    // "Compare again" repeats the last comparison started from the palette: never offered for another kind.
    [s.hasFlamegraph ? '[$(flame) Differential flamegraph](command:hotpath.showFlamegraph)' : '', s.subject ? '' : '[$(refresh) Compare again](command:hotpath.compareAgain)'].filter(Boolean).join(' · '),
  ];
  const change = m ? `${ratioPercent(m.ratio)} ${m.label}` : '';
  // "+212% req/s vs 1a2b3c4" (B is the working tree), "Node 24.21.0 −3.1% req/s vs Node 22.23.3".
  const bName = b.label.startsWith('working tree') ? '' : `${noIcons(labelText(b.label))} `;
  const command = s.hasFlamegraph ? 'hotpath.showFlamegraph' : s.subject ? undefined : 'hotpath.compareAgain';
  return { text: `$(git-compare) ${bName}${change} vs ${noIcons(labelText(a.label))}${note}`, tooltip: lines.join('\n').replace(/\n+$/, ''), tone: toneOf(c), ...(command ? { command } : {}) };
}

/** "req/s +12.3% ±8.1%": a comparison's interval so far, for the running status. */
function intervalNote(i: NonNullable<WorkflowProgress['interval']>): string {
  return ` ${i.label} ${ratioPercent(i.ratio)} ${halfWidthText(i.halfWidthPct)}`;
}

/** `+3.1 KB/req` (the status bar's short form of a growth rate). */
function perRequest(bytes: number): string {
  return `${bytes >= 0 ? '+' : ''}${formatBytes(bytes)}/req`;
}

function renderLeak(s: Extract<StatusState, { kind: 'leak' }>): RenderedStatus {
  if (s.crash) return renderLeakCrash(s.name, s.crash);
  const growing = s.verdict === 'growing';
  const text = s.comparison ? `$(pulse) heap ${noIcons(s.comparison.replace(/\/request/g, '/req'))}` : `$(pulse) heap ${growing ? `growing ${perRequest(s.bytesPerRequest)}` : 'stable'}`;
  const site = s.site ? `\n\nObjects that stay are allocated in ${mdCode(s.site.function)} at ${mdEscape(s.site.file)}${s.site.line ? `:${s.site.line}` : ''}.` : '';
  const tooltip = `**Hotpath leak check "${mdEscape(s.name)}"** — ${growing ? 'growing' : 'stable'}\n\nHeap after full GC: ${perRequest(s.bytesPerRequest)} (95% CI ${perRequest(s.ciLow)} … ${perRequest(s.ciHigh)}) over ${formatInt(s.requests)} requests.${s.comparison ? `\n\nCompared with the previous check: ${mdEscape(s.comparison)}.` : ''}${site}\n\n[$(refresh) Check again](command:hotpath.checkForLeaks)`;
  return { text, tooltip, tone: growing ? 'slower' : s.comparison?.startsWith('stable now') ? 'faster' : 'neutral', command: 'hotpath.checkForLeaks' };
}

function renderLeakCrash(name: string, c: LeakCrashStatus): RenderedStatus {
  const text = `$(pulse) heap check: ${c.outOfMemory ? 'app out of memory' : `app ${noIcons(c.exit)}`}`;
  const rungs = c.rungs.length
    ? `\n\nHeap after full GC before the end: ${c.rungs.map((r) => `${formatBytes(r.heapUsedBytes)} after ${formatInt(r.requests)} requests`).join(' · ')}.`
    : '\n\nNo heap measurement was taken before the end.';
  const tooltip = `**Hotpath leak check "${mdEscape(name)}"** — incomplete, no verdict\n\n${mdEscape(c.message)}${rungs}\n\n[$(refresh) Check again](command:hotpath.checkForLeaks)`;
  return { text, tooltip, tone: 'slower', command: 'hotpath.checkForLeaks' };
}

export function renderStatus(state: StatusState): RenderedStatus {
  switch (state.kind) {
    case 'idle':
      return { text: '$(pulse) Hotpath', tooltip: 'Hotpath: [Profile with Load](command:hotpath.profileWithLoad) · [Establish Baseline](command:hotpath.establishBaseline)', tone: 'neutral', command: 'hotpath.profileWithLoad' };
    case 'running': {
      const live = state.requestsPerSecond !== undefined ? ` ${rps(state.requestsPerSecond)} req/s` : '';
      const interval = state.interval ? ` ·${intervalNote(state.interval)}` : '';
      const intervalTip = state.interval ? ` So far (${state.interval.pairs} pairs): ${mdEscape(state.interval.label)} ${ratioPercent(state.interval.ratio)}, ${percentLevel(state.interval.level)} CI ${ratioPercent(state.interval.ciLow, 1)} … ${ratioPercent(state.interval.ciHigh, 1)} (target ±${state.interval.targetPct}%).` : '';
      return { text: `$(loading~spin) ${STAGE_LABEL[state.stage]}…${live}${interval}`, tooltip: `${mdEscape(state.title)}: ${STAGE_LABEL[state.stage].toLowerCase()}.${intervalTip} Cancel from the progress notification.`, tone: 'neutral' };
    }
    case 'profiled': {
      // Own cost (self plus the dependency, Node and native code it calls) is what a change can remove.
      const own = ownMatters(state);
      const share = own ? `${state.ownPct.toFixed(1)}% own` : `${state.selfPct.toFixed(1)}% self`;
      const loop = state.loopP99Ms !== undefined ? ` · loop p99 ${formatMs(state.loopP99Ms)}` : '';
      const loopTip = state.loopP99Ms !== undefined ? `\n\n**Event loop**: p99 delay ${formatMs(state.loopP99Ms)}${state.blockedBy ? ` — held longest by ${mdCode(state.blockedBy)}` : ''}` : '';
      return {
        text: `$(flame) ${noIcons(labelText(state.function))} ${share}${loop}`,
        tooltip: `**Hottest function**: ${mdCode(state.function)} — ${state.ownPct.toFixed(1)}% own, ${state.selfPct.toFixed(1)}% self time${state.threads ? ` of all ${state.threads} threads' time` : ''}${state.ownDetail ? ` (${mdEscape(state.ownDetail)})` : ''}\n\n${mdEscape(state.file)}${state.line ? `:${state.line}` : ''}${state.thread ? ` — ran in ${mdCode(state.thread)}` : ''}${loopTip}\n\n[$(flame) Open flamegraph](command:hotpath.showFlamegraph) · [$(pin) Establish baseline](command:hotpath.establishBaseline)`,
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
    case 'compared':
      return renderCompared(state);
    case 'leak':
      return renderLeak(state);
  }
}
