/** The report of `hotpath startup`: cold-start statistics, the module-load tree, advice, the merged profile. */
import { formatRatio } from '../../shared/text/numbers';
import type { ModuleRow } from '../startup/moduleTree';
import type { StartupResult } from '../workflow/startup';
import type { StartupVariantsResult } from '../workflow/startupCompare';
import { ratioText } from '../workflow/abEngine';
import { analysisSections } from './analysis';
import { comparisonBlock, VERDICT_WORD, verdictFact } from './comparison';
import { code, type Inline, int, line, type Line, loc, ms, pathRef, pct, prose, type Report, section, type Section, table, text } from './model';
import { warningsSection } from './notes';
import { sideLines } from './sides';
import { present, type ReportOptions } from './runs';

/** `express (12 modules)` / `./lib/config` */
function moduleName(m: ModuleRow): Inline {
  return [code(m.module), m.modules > 1 ? [' (', int(m.modules), ' modules)'] : ''];
}

/** The inclusive tree from the entry point, children by total time, down to 2% of the start. */
function treeLines(modules: readonly ModuleRow[], startMs: number): Line[] {
  const children = new Map<string | null, ModuleRow[]>();
  for (const m of modules) children.set(m.parent, [...(children.get(m.parent) ?? []), m]);
  const out: Line[] = [];
  const floor = Math.max(0.5, startMs * 0.02);
  const walk = (parent: string | null, depth: number) => {
    const kids = (children.get(parent) ?? []).filter((m) => m.totalMs >= floor).sort((a, b) => b.totalMs - a.totalMs);
    for (const m of kids.slice(0, 8)) {
      if (out.length >= 30) return;
      const from: Inline = m.requiredFrom ? ['  ← ', loc(m.requiredFrom.file, m.requiredFrom.line)] : '';
      out.push(line([moduleName(m), ': ', ms(m.totalMs), ' total, ', ms(m.selfMs), ' self', m.timing === 'sampled' ? ' (sampled)' : '', from], 2 + 2 * depth));
      if (depth < 5) walk(m.file, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}

function modulesSections(r: StartupResult): Section[] {
  const s = r.startup;
  if (!s.modules.length) return s.moduleHookMs === null ? [section('modules', [text(['Modules: not timed (--no-modules).'])])] : [];
  const hook: Inline = s.moduleHookMs !== null ? [' (timing them cost ', ms(s.moduleHookMs), ' per start)'] : '';
  const modules = table([['module', 'Module'], ['selfMs', 'Self'], ['totalMs', 'Total'], ['package', 'Package'], ['requiredFrom', 'Required from']],
    s.modules.slice(0, 12).map((m) => ({ cells: [moduleName(m), [ms(m.selfMs), m.timing === 'sampled' ? '*' : ''], ms(m.totalMs), code(m.package ?? ''), m.requiredFrom ? loc(m.requiredFrom.file, m.requiredFrom.line) : '(entry)'] })),
    { title: ['Modules by own load time', hook], ...(s.modules.length > 12 ? { more: { count: s.modules.length - 12 } } : {}) });
  const sampled = s.modules.some((m) => m.timing === 'sampled') ? [text([line('* ES module: evaluation time read from the merged profile', 2)])] : [];
  const tree = treeLines(s.modules, s.meanMs);
  const packages = s.packages.slice(0, 8).map((x) => line([code(x.package), ': ', ms(x.totalMs), ' to load (', int(x.modules), ' modules, ', ms(x.selfMs), ' in its own code)', x.requiredFrom ? ['  ← ', loc(x.requiredFrom.file, x.requiredFrom.line)] : ''], 2));
  return [
    section('modules', [modules, ...sampled]),
    ...(tree.length ? [section('modules', [text(tree, 'Module-load tree (total time, down to 2% of the start)')])] : []),
    ...(packages.length ? [section('modules', [text(packages, 'Packages (time to load each, its dependencies included)')])] : []),
  ];
}

export function startupReport(r: StartupResult, options: ReportOptions): Report {
  const s = r.startup;
  const title: Inline = ['Hotpath startup: ', code(r.target.command.join(' ')), ' (Node ', code(r.target.nodeVersion), `, until ${s.end === 'listen' ? 'it listens on a port' : 'it exits'})`];
  const hw: Inline = s.meanHalfWidthPct !== null ? [' (mean ±', pct(s.meanHalfWidthPct), ' at 95%)'] : '';
  const stats: Inline[] = [
    ['  Time (mean ± σ):   ', ms(s.meanMs), ' ± ', ms(s.stddevMs), hw],
    ['  Median:            ', ms(s.medianMs)],
    ['  Range (min … max): ', ms(s.minMs), ' … ', ms(s.maxMs), '    ', int(s.runs), ' starts after ', int(s.warmup), ' discarded', s.cpuMs !== null ? [', CPU ', ms(s.cpuMs), ' per start'] : ''],
  ];
  if (s.outliers.length) stats.push(['  Outliers (kept):   ', s.outliers.map((o): Inline => [`run ${o.run} `, ms(o.ms)]).flatMap((x, i) => (i ? [', ', x] : [x]))]);
  const p = s.phases;
  if (p.launchMs !== null && p.bootstrapMs !== null && p.appMs !== null) {
    stats.push(['  Phases (mean):     ', r.target.wrappers.length ? [code(r.target.wrappers.join(' → ')), ' and process start'] : 'process start', ' ', ms(p.launchMs), ' · Node bootstrap ', ms(p.bootstrapMs), ' · your code ', ms(p.appMs)]);
  }
  if (s.compileCache) {
    const c = s.compileCache;
    stats.push(['  Compile cache:     ', ms(c.withoutMs), ' → ', ms(c.withMs), ` with NODE_COMPILE_CACHE (${formatRatio(c.comparison.metrics.startupMs.ratio)}, ${c.comparison.verdict === 'no-significant-change' ? 'no significant change' : c.comparison.verdict}, `, int(c.pairs), ' interleaved pairs)']);
  }
  const advice = r.advice.length
    ? [section('advice', [text(r.advice.flatMap((a) => [line([prose(a.title), a.file ? [' (', loc(a.file, a.line ?? null), ')'] : ''], 2, 'bullet'), line(prose(a.text), 4)]), 'Advice')])]
    : [];
  const profile = r.profilePath
    ? [...analysisSections(r, options.cwd, ['Merged profile of ', int(s.profileRuns), ' starts sampled every ', int(s.samplingIntervalMicros), ' µs:']), section('files', [text([['Profile: ', pathRef(r.profilePath)]])])]
    : [];
  const flame = options.flamegraphPath ? [section('files', [text([['Flamegraph: ', pathRef(options.flamegraphPath), ' (open it in a browser)']])], false)] : [];
  return {
    kind: 'startup',
    headline: ['Startup ', ms(s.meanMs), ' ± ', ms(s.stddevMs), ` (mean of ${s.runs} cold starts, until ${s.end === 'listen' ? 'it listens' : 'it exits'})`, r.advice[0] ? [' · advice: ', prose(r.advice[0].title)] : ''],
    sections: [
      section('title', [text([title, ...stats])], false),
      ...modulesSections(r),
      ...advice,
      ...profile,
      ...[warningsSection(r.warnings)].filter((x): x is Section => x !== undefined),
      ...flame,
    ],
  };
}

export function startupVariantsReport(r: StartupVariantsResult): Report {
  if (r.kind === 'startup-compare') {
    const [a, b] = r.sides;
    const c = r.comparison;
    return {
      kind: 'startup',
      headline: [VERDICT_WORD[c.verdict], ': ', code(b.label), ' against ', code(a.label), ' — ', code(c.summary)],
      verdict: verdictFact(c, [a.label, b.label]),
      sections: [
        section('title', [
          text([['Hotpath startup: "', code(b.label), '" against "', code(a.label), '" (', int(c.pairs), ' interleaved pairs of cold starts)'], ...sideLines('A', a), ...sideLines('B', b)]),
          comparisonBlock(c, [a.label, b.label], 'values'),
          text([['Verdict: ', VERDICT_WORD[c.verdict], ' — ', code(c.summary)]]),
        ], false),
        ...present([warningsSection(r.warnings)]),
      ],
    };
  }
  const steps = r.steps.map((s, i) => line([`${i + 1}. `, code(s.b), ' vs ', code(s.a), `: ${VERDICT_WORD[s.verdict]} (${ratioText(s, s.level)}, `, int(s.pairs), ' pairs)'], 2));
  const step = r.step
    ? [section('comparison', [text([], 'The step itself'), comparisonBlock(r.step.comparison, [r.step.sides[0].label, r.step.sides[1].label], 'values'), text([['Verdict: ', VERDICT_WORD[r.step.comparison.verdict], ' — ', code(r.step.comparison.summary)]])])]
    : [];
  return {
    kind: 'startup',
    headline: prose(r.summary),
    ...(r.step ? { verdict: verdictFact(r.step.comparison, [r.step.sides[0].label, r.step.sides[1].label]) } : {}),
    sections: [
      section('title', [text([['Hotpath startup bisect over ', r.candidates.map((c) => code(c.label)).flatMap((x, i) => (i ? [' → ', x] : [x]))], ...steps])], false),
      section('title', [text(r.candidates.flatMap((c, i) => sideLines(String(i + 1), c)), 'Variants')]),
      ...step,
      section('summary', [text([prose(r.summary)])]),
      ...present([warningsSection(r.warnings)]),
    ],
  };
}
