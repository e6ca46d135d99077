/** The report of each kind of run: profile, script, report, baseline, verify, compare, leak. */
import { ownMatters } from '../attribution/rank';
import type { BaselineResult, VerifyResult } from '../workflow/baseline';
import type { CompareResult, SideProfile } from '../workflow/compare';
import type { LeakResult } from '../workflow/leakCheck';
import type { ProfileResult } from '../workflow/profileWithLoad';
import type { ScriptResult } from '../workflow/profileScript';
import type { ReportResult } from '../workflow/report';
import type { ThreadHotspot } from '../workflow/analyze';
import { analysisSections } from './analysis';
import { comparisonBlock, functionDiffBlock, v8ChangesSection, VERDICT_WORD, verdictFact, verdictLine } from './comparison';
import { code, fn, type Inline, int, line, type Line, loc, ms, pathRef, pct, prose, type Report, section, type Section, text } from './model';
import { checksSection, warningsSection } from './notes';
import { allocationsHeadline, allocationsSection, amountNum, isFunctionLevel, NO_LINES_NOTE, originSection, pprofWrittenSection } from './production';
import { displayFile } from './paths';
import { sideLines } from './sides';
import { crashLines, growthLine, leakComparisonLine, leakCulprit, leakSections, loadLine, loopSection, memorySection, routesSection } from './runtime';

export interface ReportOptions {
  /** Paths inside it are shown relative to it. */
  cwd: string;
  /** The flamegraph HTML written for the run, when there is one. */
  flamegraphPath?: string | null;
}

export const present = (sections: Array<Section | undefined>): Section[] => sections.filter((s): s is Section => s !== undefined);

/**
 * The headline of a profile: the user function to change, what its time goes to, and the load
 * (`` `sendStores` in app.js:12: 61.2% own (`JSON.stringify`, line 8) · 2,340 req/s ``).
 */
export function profileHeadline(hotspots: ThreadHotspot[], tail: Inline): Inline {
  const user = hotspots.find((h) => h.category === 'user');
  if (!user) {
    const top = hotspots[0];
    return top ? ['No user code among the hotspots: ', fn(top.function), ' (', loc(top.file, top.line), ') ', pct(top.selfPct), ' self', tail] : ['No sampled time in this profile', tail];
  }
  const part = user.ownParts[0];
  const parts: Inline = part && ownMatters(user) ? [' (', fn(part.function), part.callLine ? `, line ${part.callLine}` : '', ')'] : '';
  // A run with worker threads: which thread, and that the share is of that thread's time (as the CLI ranks them).
  const thread: Inline = new Set(hotspots.map((h) => h.thread)).size > 1 ? [' on thread ', code(user.thread)] : '';
  return [fn(user.function), ' in ', loc(user.file, user.line), thread, ': ', pct(user.ownPct), ' own', thread ? ' of its thread\'s time' : '', parts, tail];
}

function filesSection(r: ProfileResult | ScriptResult, options: ReportOptions): Section {
  const lines: Inline[] = [['Profile: ', pathRef(r.profilePath), r.profiles.length > 1 ? [` (+${r.profiles.length - 1} more: `, r.profiles.slice(1).map((p) => code(p.thread)).flatMap((t, i) => (i ? [', ', t] : [t])), ')'] : '']];
  const a = r.kind === 'profile' ? r.memory?.allocations : undefined;
  if (a?.heapProfilePath) lines.push(['Heap profile: ', pathRef(a.heapProfilePath), a.flamegraphPath ? [' (flamegraph: ', pathRef(a.flamegraphPath), ')'] : '']);
  return section('files', [text(lines)]);
}

function flamegraphSection(options: ReportOptions): Section | undefined {
  return options.flamegraphPath ? section('files', [text([['Flamegraph: ', pathRef(options.flamegraphPath), ' (open it in a browser)']])], false) : undefined;
}

export function profileReport(r: ProfileResult | ScriptResult, options: ReportOptions): Report {
  const { cwd } = options;
  const title: Inline = [`Hotpath ${r.kind === 'script' ? 'script profile' : 'profile'}: `, code(r.target.command.join(' ')), ' (Node ', code(r.target.nodeVersion), `, PID ${r.target.pid}`, 'port' in r.target && r.target.port ? `, port ${r.target.port}` : '', ')'];
  const run: Inline = r.kind === 'profile' ? ['Load: ', loadLine(r.load)] : [`Ran ${(r.durationMs / 1000).toFixed(1)} s, `, r.target.signal ? ['killed by ', code(r.target.signal)] : `exit code ${r.target.exitCode}`];
  const tail: Inline = r.kind === 'profile' ? [' · ', int(r.load.requests.mean), ' req/s'] : [' · ran ', ms(r.durationMs)];
  return {
    kind: r.kind,
    headline: profileHeadline(r.hotspots, tail),
    sections: present([
      section('title', [text([title, run])], false),
      r.kind === 'profile' ? routesSection(r.load) : undefined,
      ...analysisSections(r, cwd),
      ...(r.kind === 'profile' ? [memorySection(r.memory), loopSection(r.eventLoop)] : []),
      checksSection('Checks after the run', r.checks),
      warningsSection(r.warnings),
      filesSection(r, options),
      flamegraphSection(options),
    ]),
  };
}

export function reportReport(r: ReportResult, options: ReportOptions): Report {
  const { cwd } = options;
  const a = r.allocations;
  const origin = r.model.origin;
  const size: Inline = a ? amountNum(origin, a.total) : `${(r.durationMs / 1000).toFixed(2)} s`;
  const title: Inline = ['Hotpath report: ', pathRef(r.profilePath), ' (', size, ', ', int(r.sampleCount), ' samples)'];
  const head = [section('title', [text([title])], false), originSection(r.model, r.diff?.before.origin ? { path: r.diff.beforePath, model: r.diff.before } : undefined)];
  const tail = [warningsSection(r.warnings), flamegraphSection(options), pprofWrittenSection(r.pprofExport ? [r.pprofExport] : [])];
  if (a) {
    // A heap profile: its sites in bytes or objects instead of the time rankings (which would say "ms").
    return { kind: 'report', headline: allocationsHeadline(a, origin), sections: present([...head, allocationsSection(a, origin), ...tail]) };
  }
  const diff = r.diff
    ? [
      section('diff', [{
        ...functionDiffBlock(r.diff.functions, 15, ['before', 'after']),
        title: ['Changes from ', pathRef(r.diff.beforePath), ` (before) to this profile (after), self time by function, matched by name, file and line (${r.diff.matched} of ${r.diff.compared} on both sides)`],
      }]),
      v8ChangesSection(r.diff.functions, 15, ['before', 'after']),
    ]
    : [];
  // A function-level profile has no hot lines: the table says why instead of looking empty.
  const analysis = analysisSections(r, cwd).map((s) => (s.id === 'lines' && isFunctionLevel(r.model) ? { ...s, blocks: s.blocks.map((b) => (b.kind === 'table' ? { ...b, empty: NO_LINES_NOTE } : b)) } : s));
  return {
    kind: 'report',
    headline: profileHeadline(r.hotspots, [' · ', ms(r.durationMs), ' profiled', isFunctionLevel(r.model) ? ' · function-level profile (no line heat)' : '']),
    sections: present([...head, ...analysis, ...diff, ...tail]),
  };
}

export function baselineReport(r: BaselineResult, options: ReportOptions): Report {
  const title: Inline = ['Hotpath baseline \'', code(r.name), '\': ', code(r.target.command.join(' ')), ' (Node ', code(r.target.nodeVersion), ')'];
  const runs: Inline[] = r.runs.map((x, i) => ['  run ', String(i + 1), ': ', int(x.requestsPerSecond), ` req/s, p99 ${x.p99Ms} ms`, x.cpuMsPerRequest !== undefined ? `, ${x.cpuMsPerRequest.toFixed(3)} ms CPU/request` : '']);
  const mean: Inline = ['Mean: ', int(r.summary.requestsPerSecond), ` req/s, p99 ${r.summary.p99Ms.toFixed(1)} ms over ${r.runs.length} runs`];
  return {
    kind: 'baseline',
    headline: ['Baseline ', code(r.name), ': ', int(r.summary.requestsPerSecond), ` req/s, p99 ${r.summary.p99Ms.toFixed(1)} ms over ${r.runs.length} runs`],
    sections: present([
      section('title', [text([title, ...runs, mean, ...(r.leak ? [['Leak check: ', growthLine(r.leak)] as Inline, ...crashLines(r.leak), ...(r.leak.crash ? ['The baseline was saved without a leak check.'] : [])] : [])])], false),
      warningsSection(r.warnings),
      section('files', [text([['Saved: ', pathRef(r.path)]])]),
    ]),
  };
}

/** Why an interleaved comparison with the baseline's commit is the better test. */
export function interleavedHint(c: NonNullable<VerifyResult['interleavedCompare']>): string {
  const now = c.currentCommit === c.base ? 'has uncommitted changes' : `is at ${c.currentCommit ? c.currentCommit.slice(0, 10) : 'another state'}${c.currentDirty ? ' with uncommitted changes' : ''}`;
  const dirty = c.baselineDirty ? ' (the baseline itself had uncommitted changes, which the commit does not contain)' : '';
  return `The baseline was recorded at commit ${c.base.slice(0, 10)}${dirty} and the working tree ${now}. For a verdict that machine drift cannot fake, run both side by side, interleaved:`;
}

/** `compareCommand`: the `hotpath compare` line (or how else to compare interleaved) to suggest when the baseline ran on another commit. */
export function verifyReport(r: VerifyResult, options: ReportOptions & { compareCommand?: string }): Report {
  const c = r.comparison;
  const title: Inline = ['Hotpath verify against \'', code(r.name), '\' (baseline of ', code(String(r.baseline.createdAt)), '): ', code(r.target.command.join(' '))];
  const leak: Array<Inline | Line> = r.leak ? [['Leak check: ', growthLine(r.leak)], ...crashLines(r.leak), ...[leakComparisonLine(r.leakComparison, `the baseline (${String(r.baseline.createdAt)})`)].filter((x): x is Inline => x !== undefined)] : [];
  return {
    kind: 'verify',
    headline: [VERDICT_WORD[c.verdict], ' against baseline ', code(r.name), ': ', c.summary],
    verdict: verdictFact(c, ['baseline', 'now']),
    sections: present([
      section('title', [text([title]), comparisonBlock(c, ['baseline', 'now'])], false),
      section('verdict', [text([verdictLine(c), ...leak])]),
      warningsSection(r.warnings),
      r.interleavedCompare && options.compareCommand ? section('hint', [text([prose(interleavedHint(r.interleavedCompare)), line(code(options.compareCommand), 2)])]) : undefined,
    ]),
  };
}

const STOP: Record<CompareResult['comparison']['stopReason'], string> = {
  target: 'the interval reached the target',
  budget: 'the time budget ran out',
  'max-pairs': 'the pair limit was reached',
  fixed: 'as asked (--pairs)',
};

/** The model a side's diff was made of: its threads together when the diff covers threads. */
const diffModel = (p: SideProfile) => p.threads?.model ?? p.model;

/** `, every thread: A main + 2 workers, B main only`: what a diff over threads covers (shares are of all of a side's threads' time). */
function threadsCovered(t: { a: string[]; b: string[] }): string {
  const side = (labels: string[]) => (labels.length > 1 ? `main + ${labels.length - 1} ${labels.slice(1).every((l) => /\bworker \d+/.test(l)) ? 'worker' : 'other'} thread${labels.length > 2 ? 's' : ''}` : 'main only');
  return `, every thread as one profile: A ${side(t.a)}, B ${side(t.b)}`;
}

export function compareReport(r: CompareResult, options: ReportOptions & { limit: number }): Report {
  const c = r.comparison;
  const title: Inline = [`Hotpath compare (${r.mode === 'http' ? 'HTTP load' : 'script'}): `, code(r.command.join(' '))];
  const pairs: Inline = [`${c.pairs} pairs in ${(c.elapsedMs / 1000).toFixed(0)} s, interleaved A B B A …; stopped because ${STOP[c.stopReason]}`, c.targetHalfWidthPct !== null ? ` (target ±${c.targetHalfWidthPct}%)` : ''];
  const verdict: Inline = c.verdict === 'no-significant-change'
    ? ['Verdict: NO SIGNIFICANT CHANGE between A and B — ', c.summary]
    : [`Verdict: B is ${VERDICT_WORD[c.verdict]} than A — `, c.summary];
  const [a, b] = r.sides;
  const headline: Inline = c.verdict === 'no-significant-change'
    ? ['NO SIGNIFICANT CHANGE between A (', code(a.label), ') and B (', code(b.label), '): ', c.summary]
    : ['B (', code(b.label), `) is ${VERDICT_WORD[c.verdict]} than A (`, code(a.label), '): ', c.summary];
  const diff = r.diff
    ? [
      section('diff', [{
        ...functionDiffBlock(r.diff.functions, options.limit),
        title: ['Functions whose share of the time changed (self time', r.diff.threads ? threadsCovered(r.diff.threads) : '', '; A ', ms(diffModel(r.profiles!.a).durationUs / 1000), ' profiled, B ', ms(diffModel(r.profiles!.b).durationUs / 1000), `; matched by name, file and line on both sides: ${r.diff.matched} of ${r.diff.compared})`],
      }]),
      v8ChangesSection(r.diff.functions, options.limit),
    ]
    : [];
  const files: Inline[] = [
    ...(r.profiles ? [['Profiles: A ', pathRef(r.profiles.a.path), ', B ', pathRef(r.profiles.b.path)] as Inline] : []),
    ...(options.flamegraphPath ? [['Differential flamegraph: ', pathRef(options.flamegraphPath), ' (open it in a browser)'] as Inline] : []),
  ];
  return {
    kind: 'compare',
    headline,
    verdict: verdictFact(c, [a.label, b.label]),
    sections: present([
      section('title', [text([title, ...sideLines('A', a), ...sideLines('B', b), line(pairs, 2)])], false),
      section('comparison', [comparisonBlock(c, ['A', 'B'])]),
      section('verdict', [text([verdict])]),
      ...diff,
      warningsSection(r.warnings),
      files.length ? section('files', [text(files)], Boolean(r.profiles)) : undefined,
    ]),
  };
}

export function leakReport(r: LeakResult, options: ReportOptions): Report {
  const l = r.leak;
  const title: Inline = ['Hotpath leak check \'', code(r.name), '\': ', code(r.target.command.join(' ')), ' (Node ', code(r.target.nodeVersion), ')'];
  const culprit = leakCulprit(l);
  const previous = leakComparisonLine(r.previous?.comparison, r.previous?.createdAt);
  return {
    kind: 'leak',
    headline: ['Heap after full GC ', growthLine(l)],
    sections: present([
      section('title', [text([title, ['Heap after full GC: ', growthLine(l)], ...crashLines(l), ...(culprit ? [culprit] : []), ...(previous ? [previous] : [])])], false),
      ...leakSections(l),
      // A crashed check's heap-growth check restates the crash, said above.
      checksSection('Checks', l.crash ? r.checks.filter((c) => c.id !== 'heap-growth') : r.checks),
      warningsSection(r.warnings),
      l.heapProfilePath ? section('files', [text([['Retained objects\' heap profile: ', code(l.heapProfilePath)]])]) : undefined,
    ]),
  };
}

