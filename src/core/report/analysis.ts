/** The sections every profile has: the hottest user code, hotspots, hot lines, packages and V8's view. */
import { nodeModuleLabel, ownMatters, partWhere } from '../attribution/rank';
import { deoptCount, formatV8Summary } from '../v8/format';
import type { V8Collection, V8FunctionSignals } from '../v8/types';
import type { ThreadHotLine, ThreadHotspot, ThreadPackage } from '../workflow/analyze';
import { code, fn, type Inline, int, joined, line, loc, type Line, pct, type Row, section, type Section, table, text } from './model';
import { shortenPaths } from './paths';

export interface AnalysisFacts {
  hotspots: ThreadHotspot[];
  lines: ThreadHotLine[];
  packages: ThreadPackage[];
  v8?: V8Collection;
}

/** The tier column: the tier, plus what is wrong with it in a word. */
function tierCell(v8: V8FunctionSignals | undefined): Inline {
  if (!v8) return '';
  const n = deoptCount(v8.deopts);
  // "unknown" with its reason in the V8 section below, never a bare "?".
  const tier = v8.ranInlinedIn ? `${v8.tier} (inlined)` : v8.tier;
  return code(`${tier}${v8.notOptimized ? '!' : ''}${n ? ` ${n}×deopt` : ''}`);
}

/** `pbkdf2Sync (native, node:crypto)`: a callee with where its time ran. */
export function partText(p: ThreadHotspot['ownParts'][number]): Inline {
  const where = partWhere(p);
  return [fn(p.function), where ? [' (', code(where), ')'] : ''];
}

/** The hotspot's notes: who called it (the call site), or what started it, or where its own cost went. */
function contextNotes(h: ThreadHotspot): Inline[] {
  if (h.userCaller) {
    const c = h.userCaller;
    const site: Inline = c.line !== null ? loc(c.file, c.line) : [loc(c.file, c.functionLine), c.candidateLines?.length ? ` (one of lines ${c.candidateLines.join(', ')})` : ''];
    return [['called from ', fn(c.function), ' at ', site]];
  }
  if (h.asyncContext) return [[code(h.asyncContext), ' (no user code on the stack)']];
  if (h.category === 'user' && h.ownParts.length && ownMatters(h)) {
    const top = h.ownParts[0];
    return [[pct(top.pct), ' in ', partText(top), top.callLine ? ` (line ${top.callLine})` : '']];
  }
  if (h.inlinedInto.length) return [['ran inlined into ', joined(h.inlinedInto.slice(0, 2).map((n) => fn(n)), ', ')]];
  return [];
}

export function hotspotsTable(hotspots: ThreadHotspot[]) {
  const threads = new Set(hotspots.map((h) => h.thread)).size > 1;
  const tiers = hotspots.some((h) => h.v8);
  // Minified files hold many functions on one line (marked's two `parse` methods on line 86): rows
  // that would read alike get the column so they can be told apart.
  const key = (h: ThreadHotspot) => `${h.thread}\n${h.function}\n${h.file}\n${h.line}`;
  const seen = new Map<string, number>();
  for (const h of hotspots) seen.set(key(h), (seen.get(key(h)) ?? 0) + 1);
  const rows: Row[] = hotspots.map((h) => {
    const category = code(h.category === 'dependency' && h.package ? `dep: ${h.package}` : h.category);
    const where = loc(h.file, h.line, (seen.get(key(h)) ?? 0) > 1 ? h.column : null);
    const notes = contextNotes(h);
    if (h.sourceNotInstalled) notes.push(['source map points at ', loc(h.sourceNotInstalled.file, h.sourceNotInstalled.line), ' (not installed)']);
    return {
      cells: [String(h.rank), fn(h.function), where, pct(h.ownPct), pct(h.selfPct), pct(h.totalPct), int(h.ownMs), category, ...(tiers ? [tierCell(h.v8)] : []), ...(threads ? [code(h.thread)] : [])],
      ...(notes.length ? { notes } : {}),
    };
  });
  return table([['rank', '#'], ['function', 'Function'], ['location', 'Location'], ['ownPct', 'Own'], ['selfPct', 'Self'], ['totalPct', 'Total'], ['ownMs', 'Own ms'], ['category', 'Category'],
    ...(tiers ? [['tier', 'Tier'] as [string, string]] : []), ...(threads ? [['thread', 'Thread'] as [string, string]] : [])], rows);
}

/** What runs on a line: its function, the calls that carry its time, or the frame its code ran inlined in. */
export function lineWhat(l: ThreadHotLine): Inline {
  if (l.calls.length && l.ownMs > l.selfMs * 1.5) {
    const calls = l.calls.slice(0, 2).map((c): Inline => [
      fn(c.function),
      c.category === 'dependency' && c.package ? [' (', code(c.package), ')'] : c.category === 'node' ? [' (', code(nodeModuleLabel(c.file)), ')'] : c.category === 'native' ? ' (native)' : '',
      ' ', pct(c.totalPct),
    ]);
    return [fn(l.function), ' → ', joined(calls, ', ')];
  }
  if (l.inlinedInto) return [fn(l.function), ' (inlined into ', fn(l.inlinedInto), l.placement === 'inferred' ? ', inferred' : '', ')'];
  return fn(l.function);
}

export function linesTable(lines: ThreadHotLine[], threads = new Set(lines.map((l) => l.thread)).size > 1) {
  // A run with worker threads ranks each thread's lines (shares of that thread's time): say whose a row is.
  return table([['location', 'Line'], ['ownPct', 'Own'], ['selfPct', 'Self'], ['totalPct', 'Total'], ['what', 'What runs there'], ...(threads ? [['thread', 'Thread'] as [string, string]] : [])],
    lines.map((l) => ({ cells: [loc(l.file, l.line), pct(l.ownPct), pct(l.selfPct), pct(l.totalPct), lineWhat(l), ...(threads ? [code(l.thread)] : [])] })));
}

export function packagesSection(packages: ThreadPackage[], max = 10): Section | undefined {
  if (!packages.length) return undefined;
  return section('packages', [table([['package', 'Package'], ['totalPct', 'Total'], ['selfPct', 'Self'], ['totalMs', 'Total ms']],
    packages.slice(0, max).map((p) => ({ cells: [code(p.package), pct(p.totalPct), pct(p.selfPct), int(p.totalMs)] })),
    { title: 'Dependencies (time with the package on the stack)', ...(packages.length > max ? { more: { count: packages.length - max } } : {}) })]);
}

/**
 * V8's view of the hotspots worth a word (user and dependency code with deopts, left unoptimized, or
 * with inlining to know about), and the run-wide findings.
 */
export function v8Section(hotspots: ThreadHotspot[], v8: V8Collection | undefined, cwd: string): Section | undefined {
  if (!v8) return undefined;
  if (!v8.collected) return section('v8', [text([['V8 signals: not collected', v8.limitation ? [' — ', code(v8.limitation)] : '']])]);
  const short = (s: string) => code(shortenPaths(s, cwd));
  const out: Line[] = [];
  for (const h of hotspots) {
    const s = h.v8;
    if (!s || (h.category !== 'user' && h.category !== 'dependency')) continue;
    const real = s.deopts.filter((d) => !d.osr);
    if (!real.length && !s.notOptimized && !s.inlined.length && !s.notInlined) continue;
    out.push(line([code(h.function || '(anonymous)'), ' ', loc(h.file, h.line), ': ', code(formatV8Summary(s)), s.optimizations ? `, optimized ${s.optimizations}×` : ''], 2));
    for (const d of real.slice(0, 3)) {
      const where: Inline = d.file ? loc(d.file, d.line) : 'position unknown';
      const context: Inline = d.inlinedFrom ? [' (in inlined ', short(d.inlinedFrom), ')'] : d.inlinedInto ? [' (while inlined into ', short(d.inlinedInto), ')'] : '';
      out.push(line(['deopt ', d.count > 1 ? `${d.count}× ` : '', '"', code(d.reason), '" at ', where, context], 4));
      if (d.explanation) out.push(line([code(d.explanation.title), ': ', code(d.explanation.fix)], 6));
    }
    if (s.notOptimized) {
      out.push(line(['not optimized: ', code(s.notOptimized.reason)], 4));
      if (s.notOptimized.explanation) out.push(line(code(s.notOptimized.explanation.fix), 6));
    }
    if (s.inlined.length) out.push(line(['inlined here: ', joined(s.inlined.slice(0, 4).map(short), ', '), s.inlined.length > 4 ? ` +${s.inlined.length - 4}` : ''], 4));
    if (s.notInlined) out.push(line(['not inlined into its callers: ', code(s.notInlined.reason)], 4));
  }
  // Why a tier is unknown, once per reason, naming the hotspots it applies to.
  const unknown = new Map<string, Inline[]>();
  for (const h of hotspots) if (h.v8?.tierUnknown) unknown.set(h.v8.tierUnknown.reason, [...(unknown.get(h.v8.tierUnknown.reason) ?? []), fn(h.function)]);
  for (const [reason, names] of unknown) out.push(line(['tier unknown for ', joined(names.slice(0, 4), ', '), names.length > 4 ? ` +${names.length - 4}` : '', ': ', code(reason)], 2));
  for (const f of v8.findings ?? []) {
    out.push(line(['⚠ ', short(f.title), ': ', short(f.text)], 2));
    out.push(line(code(f.fix), 4));
  }
  const limitation = v8.limitation ? [line(['(', code(v8.limitation), ')'], 2)] : [];
  if (!out.length && !limitation.length) return undefined;
  const title: Inline = ['V8 (tier at the end of the run; ', code(v8.nodeVersion), ', tiers ', (v8.tiers ?? []).join(' → '), ')'];
  return section('v8', [text([...(out.length ? out : [line('nothing notable in the hot user code', 2)]), ...limitation], title)]);
}

/** The first thing to read in a profile: the user function with the most own cost, and what it spends it on. */
export function summaryLine(hotspots: ThreadHotspot[]): Inline {
  const user = hotspots.find((h) => h.category === 'user');
  if (hotspots.length === 0) return 'No function has sampled time in this profile: nothing to rank (see the warnings).';
  if (!user) return 'No user-code function among the hotspots: the time goes to dependencies or Node itself (see callers below).';
  const top = user.ownParts[0];
  const parts: Inline = top && ownMatters(user) ? [' (', pct(top.pct), ' in ', partText(top), ')'] : '';
  return ['Top user-code hotspot: ', fn(user.function), ' at ', loc(user.file, user.line), ' — ', pct(user.ownPct), ' own', parts, ', ', pct(user.selfPct), ' self, ', pct(user.totalPct), ' total.'];
}

/**
 * The analysis sections, as the CLI has always printed them: the summary line (after `lead`, when
 * given: startup's "Merged profile of …:"), hotspots, the 10 hottest lines, packages, V8.
 */
export function analysisSections(r: AnalysisFacts, cwd: string, lead?: Inline): Section[] {
  return [
    section('summary', [text([...(lead !== undefined ? [lead] : []), summaryLine(r.hotspots)])]),
    section('hotspots', [{ ...hotspotsTable(r.hotspots), title: 'Hotspots (by own cost: self time plus the dependency, Node and native code a function calls directly)' }]),
    section('lines', [{ ...linesTable(r.lines.slice(0, 10), new Set(r.lines.map((l) => l.thread)).size > 1), title: 'Hot lines', ...(r.lines.length > 10 ? { more: { count: r.lines.length - 10 } } : {}) }]),
    packagesSection(r.packages),
    v8Section(r.hotspots, r.v8, cwd),
  ].filter((s): s is Section => s !== undefined);
}
