import Table from 'cli-table3';
import type { StartupResult } from '../core/workflow/startup';
import type { StartupVariantsResult } from '../core/workflow/startupCompare';
import { ratioText, type MetricComparisonSet } from '../core/workflow/abEngine';
import type { ModuleRow } from '../core/startup/moduleTree';
import { formatRatio } from '../shared/text/numbers';
import { analysisBlock, warningsBlock } from './humanOutput';
import { displayPath, int, location, ms, pct, text } from './format';

const plain = { chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ' }, style: { head: [] as string[], border: [] as string[], 'padding-left': 0, 'padding-right': 0 } };

/** `express (12 modules)` / `./lib/config` */
function moduleName(m: ModuleRow): string {
  return text(m.module) + (m.modules > 1 ? ` (${int(m.modules)} modules)` : '');
}

/** The inclusive tree from the entry point, children by total time, down to 2% of the start. */
function treeLines(modules: readonly ModuleRow[], cwd: string, startMs: number): string[] {
  const children = new Map<string | null, ModuleRow[]>();
  for (const m of modules) children.set(m.parent, [...(children.get(m.parent) ?? []), m]);
  const out: string[] = [];
  const floor = Math.max(0.5, startMs * 0.02);
  const walk = (parent: string | null, depth: number) => {
    const kids = (children.get(parent) ?? []).filter((m) => m.totalMs >= floor).sort((a, b) => b.totalMs - a.totalMs);
    for (const m of kids.slice(0, 8)) {
      if (out.length >= 30) return;
      const from = m.requiredFrom ? `  ← ${location(m.requiredFrom.file, m.requiredFrom.line, cwd)}` : '';
      out.push(`  ${'  '.repeat(depth)}${moduleName(m)}: ${ms(m.totalMs)} total, ${ms(m.selfMs)} self${m.timing === 'sampled' ? ' (sampled)' : ''}${from}`);
      if (depth < 5) walk(m.file, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}

export function renderStartup(r: StartupResult, cwd: string): string {
  const s = r.startup;
  const head = `Hotpath startup: ${text(r.target.command.join(' '))} (Node ${text(r.target.nodeVersion)}, until ${s.end === 'listen' ? 'it listens on a port' : 'it exits'})\n`;
  const hw = s.meanHalfWidthPct !== null ? ` (mean ±${pct(s.meanHalfWidthPct)} at 95%)` : '';
  const stats = `  Time (mean ± σ):   ${ms(s.meanMs)} ± ${ms(s.stddevMs)}${hw}\n  Median:            ${ms(s.medianMs)}\n  Range (min … max): ${ms(s.minMs)} … ${ms(s.maxMs)}    ${int(s.runs)} starts after ${int(s.warmup)} discarded${s.cpuMs !== null ? `, CPU ${ms(s.cpuMs)} per start` : ''}\n`;
  const outliers = s.outliers.length ? `  Outliers (kept):   ${s.outliers.map((o) => `run ${o.run} ${ms(o.ms)}`).join(', ')}\n` : '';
  const p = s.phases;
  const phases = p.launchMs !== null && p.bootstrapMs !== null && p.appMs !== null
    ? `  Phases (mean):     ${r.target.wrappers.length ? `${text(r.target.wrappers.join(' → '))} and process start` : 'process start'} ${ms(p.launchMs)} · Node bootstrap ${ms(p.bootstrapMs)} · your code ${ms(p.appMs)}\n`
    : '';
  const cache = s.compileCache
    ? `  Compile cache:     ${ms(s.compileCache.withoutMs)} → ${ms(s.compileCache.withMs)} with NODE_COMPILE_CACHE (${formatRatio(s.compileCache.comparison.metrics.startupMs.ratio)}, ${s.compileCache.comparison.verdict === 'no-significant-change' ? 'no significant change' : s.compileCache.comparison.verdict}, ${int(s.compileCache.pairs)} interleaved pairs)\n`
    : '';

  let modules = '';
  if (s.modules.length) {
    const table = new Table({ ...plain, head: ['Module', 'Self', 'Total', 'Package', 'Required from'] });
    for (const m of s.modules.slice(0, 12)) {
      table.push([moduleName(m), ms(m.selfMs) + (m.timing === 'sampled' ? '*' : ''), ms(m.totalMs), text(m.package ?? ''), m.requiredFrom ? location(m.requiredFrom.file, m.requiredFrom.line, cwd) : '(entry)']);
    }
    const tree = treeLines(s.modules, cwd, s.meanMs);
    const packages = s.packages.slice(0, 8).map((x) => `  ${text(x.package)}: ${ms(x.totalMs)} to load (${int(x.modules)} modules, ${ms(x.selfMs)} in its own code)${x.requiredFrom ? `  ← ${location(x.requiredFrom.file, x.requiredFrom.line, cwd)}` : ''}`);
    const sampled = s.modules.some((m) => m.timing === 'sampled') ? '  * ES module: evaluation time read from the merged profile\n' : '';
    const hook = s.moduleHookMs !== null ? ` (timing them cost ${ms(s.moduleHookMs)} per start)` : '';
    modules = `\nModules by own load time${hook}:\n${table.toString()}\n${sampled}` +
      (tree.length ? `\nModule-load tree (total time, down to 2% of the start):\n${tree.join('\n')}\n` : '') +
      (packages.length ? `\nPackages (time to load each, its dependencies included):\n${packages.join('\n')}\n` : '');
  } else if (s.moduleHookMs === null) {
    modules = '\nModules: not timed (--no-modules).\n';
  }

  const advice = r.advice.length
    ? '\nAdvice:\n' + r.advice.map((a) => `  • ${text(a.title)}${a.file ? ` (${location(a.file, a.line ?? null, cwd)})` : ''}\n    ${text(a.text)}`).join('\n') + '\n'
    : '';
  const profile = r.profilePath
    ? `\nMerged profile of ${int(s.profileRuns)} starts sampled every ${int(s.samplingIntervalMicros)} µs:` + analysisBlock(r, cwd) + `\nProfile: ${displayPath(r.profilePath, cwd)}\n`
    : '';
  return head + stats + outliers + phases + cache + modules + advice + profile + warningsBlock(r.warnings);
}

const VERDICT = { faster: 'FASTER', slower: 'SLOWER', 'no-significant-change': 'NO SIGNIFICANT CHANGE' } as const;

function comparisonLines(c: MetricComparisonSet & { pairs: number; summary: string }): string {
  const metrics = Object.values(c.metrics).map((m) => `  ${text(m.label)}: ${ms(m.a.geomean)} → ${ms(m.b.geomean)}, ${ratioText(m, c.metricConfidenceLevel)}${m.pValue !== null ? `, p=${m.pValue < 0.001 ? '<0.001' : m.pValue.toFixed(3)}` : ''}`).join('\n');
  return `${metrics}\n  ${text(c.method)}; ${text(c.correction)}\nVerdict: ${VERDICT[c.verdict]} — ${text(c.summary)}\n`;
}

export function renderStartupVariants(r: StartupVariantsResult): string {
  if (r.kind === 'startup-compare') {
    const [a, b] = r.sides;
    return `Hotpath startup: "${text(b.label)}" against "${text(a.label)}" (${int(r.comparison.pairs)} interleaved pairs of cold starts)\n${comparisonLines(r.comparison)}`;
  }
  const steps = r.steps.map((s, i) => `  ${i + 1}. ${text(s.b)} vs ${text(s.a)}: ${VERDICT[s.verdict]} (${ratioText(s, s.level)}, ${int(s.pairs)} pairs)`).join('\n');
  return `Hotpath startup bisect over ${r.candidates.map((c) => text(c.label)).join(' → ')}\n${steps}\n${r.step ? `\nThe step itself:\n${comparisonLines(r.step.comparison)}` : ''}\n${text(r.summary)}\n`;
}
