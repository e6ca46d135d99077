/** The report of `hotpath bench`: per task throughput and time per operation, V8's view, warnings, comparisons. */
import { formatNs, formatPct, formatRate, formatRatio } from '../../shared/text/numbers';
import type { BenchTask } from '../bench/aggregate';
import { formatV8Summary } from '../v8/format';
import type { BenchResult } from '../workflow/bench';
import { comparisonBlock, VERDICT_WORD, verdictFact } from './comparison';
import { code, type Inline, line, type Line, numText, pathRef, type Report, section, type Section, table, text } from './model';
import { warningsSection } from './notes';

const measuresNothing = (t: BenchTask) => t.warnings.some((w) => w.code === 'OPTIMIZED_AWAY' || w.code === 'UNDER_A_FEW_NS');

function tasksTable(tasks: BenchTask[]) {
  // Relative to the fastest task that measures something (not one optimised away).
  const fastest = Math.max(0, ...tasks.filter((t) => !measuresNothing(t)).map((t) => t.opsPerSec));
  return table([['task', 'Task'], ['opsPerSec', 'Throughput'], ['rme', '±'], ['meanNs', 'mean/op'], ['p99Ns', 'p99/op'], ['samples', 'samples'], ['v8', 'V8']],
    tasks.map((t) => {
      const rel = tasks.length > 1 && t.opsPerSec > 0 && t.opsPerSec < fastest && fastest > 0 ? ` (${formatRatio(fastest / t.opsPerSec)} slower)` : '';
      return { cells: [[code(t.name), rel], numText(t.opsPerSec, formatRate(t.opsPerSec, 'ops/s')), t.rme === null ? '?' : numText(t.rme, formatPct(t.rme)), numText(t.meanNs, formatNs(t.meanNs)), numText(t.p99Ns, formatNs(t.p99Ns)), numText(t.samples, String(t.samples)), t.v8 ? code(formatV8Summary(t.v8)) : ''] };
    }));
}

function taskNotes(tasks: BenchTask[]): Line[] {
  const out: Line[] = [];
  for (const t of tasks) {
    for (const w of t.warnings) out.push(line(['⚠ ', code(t.name), ' [', code(w.code), '] ', code(w.message)], 2));
    const v = t.v8;
    if (v) {
      const real = v.deopts.filter((d) => !d.osr);
      for (const d of real.slice(0, 2)) out.push(line([code(t.name), ': deopt "', code(d.reason), '"', d.line ? ` at line ${d.line}` : '', d.count > 1 ? ` (${d.count}×)` : '', d.explanation ? [' — ', code(d.explanation.fix)] : ''], 2));
      if (v.inlined.length) out.push(line([code(t.name), ': inlined into the task: ', v.inlined.slice(0, 4).map((x) => code(x)).flatMap((x, i) => (i ? [', ', x] : [x]))], 2));
      if (v.notOptimized) out.push(line([code(t.name), ': not optimized — ', code(v.notOptimized.reason)], 2));
    }
  }
  return out;
}

export function benchReport(r: BenchResult, options: { cwd: string }): Report {
  const title: Inline = ['Hotpath bench: ', pathRef(r.file), ` (${r.harness}`, r.harnessVersion ? [' ', code(r.harnessVersion)] : '', ', Node ', code(r.nodeVersion ?? '?'), `, ${r.runs} process${r.runs === 1 ? '' : 'es'}; ± is the 95% interval of the mean across them)`];
  const notes = taskNotes(r.tasks);
  const sections: Section[] = [section('title', [text([title]), tasksTable(r.tasks)], false)];
  if (notes.length) sections.push(section('bench', [text(notes)]));
  if (r.against) {
    const againstNotes = taskNotes(r.against.tasks);
    sections.push(section('bench', [{ ...tasksTable(r.against.tasks), title: pathRef(r.against.file) }]));
    if (againstNotes.length) sections.push(section('bench', [text(againstNotes)]));
  }
  const c = r.comparison;
  if (c) {
    const head: Inline = ['Comparison (', c.kind === 'baseline' ? ['baseline \'', code(c.a), '\''] : [code(c.a), ' → ', code(c.b)], c.pairs ? `, ${c.pairs} interleaved pairs` : '', ')'];
    sections.push(section('comparison', [text([], head), comparisonBlock(c, [c.a, c.b], 'ratios'), text([['Verdict: ', VERDICT_WORD[c.verdict], ' — ', code(c.summary)]])]));
  }
  if (r.baselinePath) sections.push(section('files', [text([['Saved baseline: ', pathRef(r.baselinePath)]])]));
  const warnings = warningsSection(r.warnings);
  if (warnings) sections.push(warnings);
  const measured = r.tasks.filter((t) => !measuresNothing(t)).sort((a, b) => b.opsPerSec - a.opsPerSec)[0];
  return {
    kind: 'bench',
    headline: c ? [VERDICT_WORD[c.verdict], ': ', code(c.b), ' against ', code(c.a), ' — ', code(c.summary)] : measured ? ['Fastest: ', code(measured.name), ' ', formatRate(measured.opsPerSec, 'ops/s'), ` (${r.tasks.length} task${r.tasks.length === 1 ? '' : 's'})`] : 'No task measured anything (see the warnings)',
    ...(c ? { verdict: verdictFact(c, [c.a, c.b]) } : {}),
    sections,
  };
}
