/**
 * The Markdown a CI run leaves behind — GitHub's job summary, `--md FILE` for GitLab notes, Jenkins or a
 * comment bot — built on the report model and rendered by its one Markdown renderer (the same as
 * `hotpath report --md`): the gate's verdict first, the metrics table, what was run (pairs or runs, the
 * budget used), both sides, the functions whose share changed most with V8's changes, warnings, files.
 */
import { buildReport } from '../report';
import { code, type Inline, line, type Line, prose, type Report, section, type Section, text } from '../report/model';
import { renderMarkdown } from '../report/render/markdown';
import { ratioInterval, ratioPercent } from '../stats/formatComparison';
import type { VerifyResult } from '../workflow/baseline';
import type { BenchResult } from '../workflow/bench';
import type { CompareResult } from '../workflow/compare';
import type { StartupVariantsResult } from '../workflow/startupCompare';
import type { GatePolicy, GateResult } from './policy';

/** The results a gate applies to: verify, compare, a startup comparison, a benchmark against a baseline. */
export type GatedResult = VerifyResult | CompareResult | Extract<StartupVariantsResult, { kind: 'startup-compare' }> | BenchResult;

export interface CiSummaryOptions {
  cwd: string;
  policy: GatePolicy;
  /** The process's exit code for this outcome (0, 3 or 4). */
  exitCode: number;
  /** Rows of the function diff (compare). */
  limit: number;
  flamegraphPath?: string | null;
  /** compare: the time budget it had, seconds (absent with --pairs). */
  budgetSeconds?: number;
  compareCommand?: string;
}

const GATE_WORD = { pass: 'PASSES', regression: 'FAILS', inconclusive: 'INCONCLUSIVE' } as const;

function policyText(p: GatePolicy): string {
  const fails = [...p.failOn];
  return [
    fails.length ? `fails on ${fails.join(' or ')}` : 'never fails (--fail-on never)',
    p.maxRegressionPct !== undefined ? `a regression counts beyond ${p.maxRegressionPct}% (--max-regression)` : 'any significant regression counts',
    ...(p.minEffectPct !== undefined ? [`changes under ${p.minEffectPct}% are too small to matter (--min-effect)`] : []),
  ].join('; ');
}

/** What was run and how long it took: pairs and the budget, or runs on each side. */
function runsLines(r: GatedResult, o: CiSummaryOptions): Line[] {
  switch (r.kind) {
    case 'compare': {
      const c = r.comparison;
      const budget = o.budgetSeconds !== undefined ? ` of the ${o.budgetSeconds} s budget` : '';
      return [line(`${c.pairs} interleaved pairs in ${Math.round(c.elapsedMs / 1000)} s${budget} (stopped: ${c.stopReason === 'target' ? 'the interval reached its target' : c.stopReason === 'budget' ? 'the budget ran out' : c.stopReason === 'max-pairs' ? 'the pair limit' : '--pairs'})`, 2, 'bullet')];
    }
    case 'verify': {
      const b = r.baseline;
      return [
        line(['baseline: ', String(b.runs.length), ' runs recorded ', code(b.createdAt), ' on Node ', code(b.nodeVersion), b.nodeEnv ? [', NODE_ENV=', code(b.nodeEnv)] : ''], 2, 'bullet'),
        line(['now: ', String(r.runs.length), ' runs on Node ', code(r.target.nodeVersion), ' — ', code(r.target.command.join(' '))], 2, 'bullet'),
      ];
    }
    case 'startup-compare':
      return [line(`${r.comparison.pairs} interleaved pairs of cold starts`, 2, 'bullet')];
    case 'bench':
      return [line([`${r.runs} fresh processes of `, code(r.file), r.comparison?.kind === 'baseline' ? [' against the baseline ', code(r.comparison.a)] : ''], 2, 'bullet')];
  }
}

/** The gate's section: its decision, the policy, the deciding metrics, what would decide. */
function gateSection(r: GatedResult, gate: GateResult, o: CiSummaryOptions): Section {
  const level = 'comparison' in r && r.comparison ? r.comparison.metricConfidenceLevel : 0.95;
  const lines: Array<Line | Inline> = [
    [`Gate: ${GATE_WORD[gate.outcome]}${gate.failed ? ` (exit ${o.exitCode})` : gate.outcome !== 'pass' ? ' (not failing: see the policy)' : ''} — `, prose(gate.summary)],
    ...(o.policy.minEffectPct !== undefined ? [['In the policy\'s words: ', gate.wording] as Inline] : []),
    ...(gate.toDecide ? [['To decide: ', prose(gate.toDecide)] as Inline] : []),
    `Policy: ${policyText(o.policy)}.`,
    'Deciding metrics:',
    ...gate.deciding.map((m) => line([code(m.label), ` ${ratioPercent(m.ratio, 1)} (${ratioInterval(m, level)})${m.change !== 'none' ? `, ${m.change}` : ''}`], 2, 'bullet')),
    'Measured:',
    ...runsLines(r, o),
  ];
  return section('verdict', [text(lines)]);
}

/** The CI report: a run's report with the gate first and the metrics table right after it. */
export function ciReport(r: GatedResult, gate: GateResult, o: CiSummaryOptions, limit = o.limit): Report {
  const base = buildReport(r, { cwd: o.cwd, flamegraphPath: o.flamegraphPath ?? null, limit, compareCommand: o.compareCommand });
  const tables = base.sections.flatMap((s) => s.blocks.filter((b) => b.kind === 'comparison'));
  const rest = base.sections.map((s) => ({ ...s, blocks: s.blocks.filter((b) => b.kind !== 'comparison') })).filter((s) => s.blocks.length);
  const what = r.kind === 'startup-compare' ? 'startup' : r.kind;
  return {
    kind: `ci-${base.kind}`,
    headline: [`Hotpath ${what}: ${GATE_WORD[gate.outcome]} — `, base.headline],
    ...(base.verdict ? { verdict: base.verdict } : {}),
    sections: [gateSection(r, gate, o), ...(tables.length ? [section('comparison', tables)] : []), ...rest],
  };
}

/** The CI Markdown; `short` leaves out the function diff's long tail and the warnings' app output (for the size limit). */
export function ciMarkdown(r: GatedResult, gate: GateResult, o: CiSummaryOptions, short = false): string {
  const report = ciReport(r, gate, o, short ? 5 : o.limit);
  return `### ${renderMarkdown(report, { cwd: o.cwd, ...(short ? { codeMax: 60 } : {}) })}`;
}
