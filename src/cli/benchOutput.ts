import Table from 'cli-table3';
import type { BenchTask } from '../core/bench/aggregate';
import { formatV8Summary } from '../core/v8/format';
import type { BenchResult } from '../core/workflow/bench';
import { ratioText } from '../core/workflow/abEngine';
import { formatNs, formatPct, formatRate, formatRatio } from '../shared/text/numbers';
import { warningsBlock } from './humanOutput';
import { displayPath, text } from './format';

const plain = { chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ' }, style: { head: [] as string[], border: [] as string[], 'padding-left': 0, 'padding-right': 0 } };

function tasksTable(tasks: BenchTask[]): string {
  const table = new Table({ ...plain, head: ['Task', 'Throughput', '±', 'mean/op', 'p99/op', 'samples', 'V8'] });
  // Relative to the fastest task that measures something (not one optimised away).
  const fastest = Math.max(0, ...tasks.filter((t) => !t.warnings.some((w) => w.code === 'OPTIMIZED_AWAY' || w.code === 'UNDER_A_FEW_NS')).map((t) => t.opsPerSec));
  for (const t of tasks) {
    const rel = tasks.length > 1 && t.opsPerSec > 0 && t.opsPerSec < fastest && fastest > 0 ? ` (${formatRatio(fastest / t.opsPerSec)} slower)` : '';
    table.push([text(t.name) + rel, formatRate(t.opsPerSec, 'ops/s'), t.rme === null ? '?' : formatPct(t.rme), formatNs(t.meanNs), formatNs(t.p99Ns), String(t.samples), t.v8 ? text(formatV8Summary(t.v8)) : '']);
  }
  return table.toString();
}

function taskNotes(tasks: BenchTask[]): string {
  const out: string[] = [];
  for (const t of tasks) {
    for (const w of t.warnings) out.push(`  ⚠ ${text(t.name)} [${w.code}] ${text(w.message)}`);
    const v = t.v8;
    if (v) {
      const real = v.deopts.filter((d) => !d.osr);
      for (const d of real.slice(0, 2)) out.push(`  ${text(t.name)}: deopt "${text(d.reason)}"${d.line ? ` at line ${d.line}` : ''}${d.count > 1 ? ` (${d.count}×)` : ''}${d.explanation ? ` — ${text(d.explanation.fix)}` : ''}`);
      if (v.inlined.length) out.push(`  ${text(t.name)}: inlined into the task: ${v.inlined.slice(0, 4).map(text).join(', ')}`);
      if (v.notOptimized) out.push(`  ${text(t.name)}: not optimized — ${text(v.notOptimized.reason)}`);
    }
  }
  return out.length ? `\n${out.join('\n')}\n` : '';
}

export function renderBench(r: BenchResult, cwd: string): string {
  const head = `Hotpath bench: ${displayPath(r.file, cwd)} (${r.harness}${r.harnessVersion ? ` ${text(r.harnessVersion)}` : ''}, Node ${text(r.nodeVersion ?? '?')}, ${r.runs} process${r.runs === 1 ? '' : 'es'}; ± is the 95% interval of the mean across them)\n`;
  let body = tasksTable(r.tasks) + '\n' + taskNotes(r.tasks);
  if (r.against) body += `\n${displayPath(r.against.file, cwd)}:\n${tasksTable(r.against.tasks)}\n${taskNotes(r.against.tasks)}`;
  if (r.comparison) {
    const c = r.comparison;
    const verdict = { faster: 'FASTER', slower: 'SLOWER', 'no-significant-change': 'NO SIGNIFICANT CHANGE' }[c.verdict];
    const metrics = Object.values(c.metrics).map((m) => `  ${text(m.label)}: ${ratioText(m, c.metricConfidenceLevel)}${m.pValue !== null ? `, p=${m.pValue < 0.001 ? '<0.001' : m.pValue.toFixed(3)}` : ''}`).join('\n');
    body += `\nComparison (${c.kind === 'baseline' ? `baseline '${text(c.a)}'` : `${text(c.a)} → ${text(c.b)}`}${c.pairs ? `, ${c.pairs} interleaved pairs` : ''}):\n${metrics}\n  ${text(c.method)}; ${text(c.correction)}\nVerdict: ${verdict} — ${text(c.summary)}\n`;
  }
  if (r.baselinePath) body += `\nSaved baseline: ${displayPath(r.baselinePath, cwd)}\n`;
  return head + body + warningsBlock(r.warnings);
}
