/**
 * `hotpath_explain`: everything known about one function — its cost and where it goes, its lines, who
 * calls it from which line, V8's story, allocations, loop blocking — and the advice that applies.
 */
import { callersOf } from '../annotate/build';
import { functionLabel, partWhere, whereLabel } from '../attribution/rank';
import { ErrorCode, HotpathError } from '../common/errors';
import { lineWhat } from '../report/analysis';
import { bytes, code, fn, type Inline, int, joined, line, type Line, loc, ms, pct, prose, type Report, section, type Section, table, text } from '../report/model';
import { shortenPaths } from '../report/paths';
import { roundMs, roundPct } from '../profile/units';
import { tierText } from '../v8/format';
import { type AnalyzedProfile, sameFile, v8Of } from './analysis';
import { threadsNote } from './hotLines';
import { amountNum, isFunctionLevel } from '../report/production';
import { threadNote } from '../profile/threads';

export interface ExplainQuery {
  file: string;
  line?: number;
  function?: string;
  roots: readonly string[];
  cwd: string;
}

/** The function the agent means: the code on that line, the function around it, or by name. */
function findFunction(a: AnalyzedProfile, q: ExplainQuery): number {
  const { attribution: attr } = a;
  if (q.line !== undefined) {
    const onLine = a.lines.find((l) => l.line === q.line && sameFile(l.file, q.file, q.roots) && l.id >= 0);
    if (onLine) return onLine.id;
    let best = -1;
    for (let f = 0; f < attr.functions.length; f++) {
      const info = attr.functions[f];
      if (info.line === null || info.line > q.line || !sameFile(info.file, q.file, q.roots) || attr.totalUs[f] <= 0) continue;
      if (best < 0 || info.line > attr.functions[best].line! || (info.line === attr.functions[best].line && attr.totalUs[f] > attr.totalUs[best])) best = f;
    }
    if (best >= 0) return best;
  }
  const matches: number[] = [];
  for (let f = 0; f < attr.functions.length; f++) {
    const info = attr.functions[f];
    if (!sameFile(info.file, q.file, q.roots)) continue;
    if (q.function !== undefined ? functionLabel(info) === q.function : q.line === undefined) matches.push(f);
  }
  if (matches.length) return matches.sort((x, y) => attr.ownUs[y] - attr.ownUs[x])[0];
  const inFile = a.lines.filter((l) => sameFile(l.file, q.file, q.roots)).slice(0, 6).map((l) => `${l.function} (line ${l.line})`);
  const what = q.function !== undefined ? `a function named "${q.function}"` : q.line !== undefined ? `time at line ${q.line} or a function above it` : 'a function';
  throw new HotpathError(ErrorCode.InvalidOption,
    `The profile has no ${what} in "${q.file}". ${inFile.length ? `Its hot code there: ${inFile.join(', ')}.` : 'No line of that file has time: hotpath_hot_lines lists the files that do.'}`);
}

export function explainReport(a: AnalyzedProfile, q: ExplainQuery): Report {
  const { attribution: attr, model } = a;
  const f = findFunction(a, q);
  const info = attr.functions[f];
  const name = functionLabel(info);
  const duration = model.durationUs || 1;
  const p = (us: number) => pct(roundPct(us, duration));
  // A heap profile's amounts are bytes or objects, never milliseconds.
  const origin = model.origin;
  const m = (us: number) => (origin && origin.unit !== 'us' ? amountNum(origin, us) : ms(roundMs(us)));
  const unit = !origin || origin.unit === 'us' ? 'ms' : origin.unit === 'bytes' ? 'Bytes' : 'Objects';
  const functionLevel = isFunctionLevel(model);
  const threads = a.threads ? a.threads.of(f) : [];
  const self = attr.selfUs[f], total = attr.totalUs[f], own = info.category === 'user' ? Math.max(attr.ownUs[f], self) : self;
  const where = whereLabel(info);
  const v8 = v8Of(a, f);
  const sections: Section[] = [];

  const facts: Inline[] = [
    [fn(name), ' at ', loc(info.file, info.line), ' — ', info.category === 'user' ? 'your code' : [info.category, where ? [' ', code(where)] : '']],
    ['Own ', p(own), ' (', m(own), ') · self ', p(self), ' (', m(self), ') · total ', p(total), ' (', m(total), ') of ', m(model.durationUs), origin && origin.unit !== 'us' ? [' ', code(origin.sampleType?.type ?? origin.unit), ' in the profile'] : ' profiled'],
  ];
  if (a.threads) facts.push(['Ran in ', threads.length ? joined(threads.map((t) => code(t)), ', ') : 'no thread with samples', ` — ${threadsNote(a)}`]);
  if (functionLevel) facts.push('This is a function-level profile: it has only each function\'s start line, so neither the lines its time ran on nor the lines its callers call it from are known (callers are shown at their declarations).');
  if (attr.inlinedUs[f] > 0) facts.push(['Ran inlined into ', joined((attr.inlinedInto.get(f) ?? []).slice(0, 4).map((x) => fn(functionLabel(attr.functions[x.frame]))), ', '), ' for ', m(attr.inlinedUs[f]), ' of its self time']);
  const notPlaced = attr.notPlaced.get(f);
  if (notPlaced && notPlaced.us > 0) facts.push([m(notPlaced.us), ' V8 charged to it could not be placed on a line: ', prose(notPlaced.reasons.join('; '))]);
  sections.push(section('explain', [text(facts)], false));

  const parts = (attr.ownParts.get(f) ?? []).slice(0, 8);
  if (parts.length) {
    sections.push(section('explain', [table([['function', 'Calls into'], ['where', 'Where'], ['pct', 'Share'], ['ms', unit], ['callLine', 'Called at']], parts.map((part) => {
      const c = attr.functions[part.callee];
      const site = attr.callSites.get(`${f}:${part.callee}`);
      return { cells: [fn(functionLabel(c)), code(partWhere({ ranIn: part.ranIn, category: c.category, package: c.package, file: c.url || c.file })), p(part.us), m(part.us), site?.status === 'placed' ? loc(site.site.file, site.site.line) : site?.status === 'ambiguous' ? `one of lines ${site.lines.map((l) => l.line).join(', ')}` : ''] };
    }), { title: 'Own cost outside its own lines (dependency, Node and native code it calls)' })]));
  }

  const lines = a.lines.filter((l) => l.id === f).slice(0, 12);
  if (lines.length) {
    sections.push(section('lines', [table([['location', 'Line'], ['ownPct', 'Own'], ['selfPct', 'Self'], ['totalPct', 'Total'], ['what', 'What runs there']],
      lines.map((l) => ({ cells: [loc(l.file, l.line), pct(l.ownPct), pct(l.selfPct), pct(l.totalPct), lineWhat(l)] })), { title: 'Its hot lines' })]));
    const calls = lines.flatMap((l) => l.calls.map((c) => ({ l, c }))).sort((x, y) => y.c.totalMs - x.c.totalMs).slice(0, 10);
    if (calls.length) {
      sections.push(section('explain', [table([['line', 'Line'], ['callee', 'Calls'], ['where', 'Where'], ['totalPct', 'Total'], ['totalMs', 'ms']],
        calls.map(({ l, c }) => ({ cells: [loc(l.file, l.line), fn(c.function), code(c.category === 'dependency' ? c.package ?? '' : c.category === 'user' ? '' : c.category), pct(c.totalPct), int(c.totalMs)] })),
        { title: 'Calls it makes, by line (inclusive time)' })]));
    }
  }

  const callers = callersOf(model, attr, new Set([f]), 8).get(f) ?? [];
  if (callers.length) {
    sections.push(section('explain', [table([['caller', 'Caller'], ['site', 'Call site'], ['sharePct', unit === 'ms' ? 'Share of its time' : 'Share of its amount']],
      callers.map((c) => ({ cells: [fn(c.function), [loc(c.file, c.line), c.callSite ? '' : c.inlined ? ' (ran inlined there)' : c.candidateLines?.length ? ` (one of lines ${c.candidateLines.join(', ')})` : ' (its declaration)'], pct(c.sharePct)] })),
      { title: 'Callers' })]));
  }

  if (v8) sections.push(section('v8', [text(v8Lines(v8, q.cwd), 'V8')]));
  else if (a.v8 && !a.v8.collected) sections.push(section('v8', [text([['Not collected: ', prose(a.v8.limitation ?? 'unknown reason')]], 'V8')]));

  const allocations = a.memory?.allocations?.sites.filter((s) => s.function === name && sameFile(s.file, info.file, [])) ?? [];
  if (allocations.length) {
    sections.push(section('memory', [text(allocations.map((s) => [bytes(s.bytes), ' sampled', s.bytesPerRequest !== null ? [' (', bytes(s.bytesPerRequest), '/request)'] : '', ', ', pct(s.pct), ' of all allocations, at ', loc(s.file, s.line)]), 'Allocations')]));
  }
  const blocked = a.eventLoop?.blockingLines.filter((b) => b.function === name && sameFile(b.file, info.file, [])) ?? [];
  if (blocked.length) {
    sections.push(section('loop', [text(blocked.map((b) => [loc(b.file, b.line), ' held the event loop: ', ms(b.blockedMs), ' in ', int(b.episodes), ` turn${b.episodes === 1 ? '' : 's'} (median `, ms(b.medianEpisodeMs), ')']), 'Event loop')]));
  }

  const base = info.file.split('/').pop() ?? info.file;
  const advice = (a.checks ?? []).filter((c) => c.status !== 'pass' && c.advice && (c.advice.includes(`${name} (`) || c.advice.includes(`(${base}:`)));
  if (advice.length) sections.push(section('checks', [text(advice.map((c) => line([prose(c.title), ': ', prose(c.advice!)], 2, c.status)), 'Advice')]));

  const top = parts[0];
  const hottest = lines[0];
  const ranIn = threadNote(threads);
  const headline: Inline = [
    fn(name), ' (', loc(info.file, info.line), ranIn ? [', ', code(ranIn)] : '', '): ', p(own), ' own · ', p(total), ' total',
    origin && origin.unit !== 'us' ? [' of ', code(origin.sampleType?.type ?? origin.unit)] : a.threads ? ` of all ${a.threads.labels.length} threads` : '',
    top ? [' · most in ', fn(functionLabel(attr.functions[top.callee])), ' (', p(top.us), ')'] : '',
    hottest ? [' · hottest line ', String(hottest.line), ' (', pct(hottest.ownPct), ')'] : '',
    v8 ? [' · ', code(tierText(v8))] : '',
    functionLevel ? ' · function-level profile (no line heat)' : '',
  ];
  return { kind: 'explain', headline, sections };
}

function v8Lines(v8: NonNullable<ReturnType<typeof v8Of>>, cwd: string): Line[] {
  const short = (s: string) => code(shortenPaths(s, cwd));
  const out: Line[] = [line(['Tier at the end of the run: ', code(tierText(v8)), v8.optimizations ? `, optimized ${v8.optimizations}×` : '', v8.tierUnknown ? [' — ', prose(v8.tierUnknown.reason)] : ''])];
  for (const d of v8.deopts.filter((x) => !x.osr).slice(0, 5)) {
    out.push(line(['Deopt ', d.count > 1 ? `${d.count}× ` : '', code(d.reason), ' (', code(d.kind), ') at ', d.file ? loc(d.file, d.line, d.column) : 'an unknown position', d.inlinedFrom ? [' in inlined ', short(d.inlinedFrom)] : ''], 2));
    if (d.explanation) {
      out.push(line([code(d.explanation.title), ': ', code(d.explanation.text)], 4));
      out.push(line(['Fix: ', code(d.explanation.fix)], 4));
    }
  }
  if (v8.notOptimized) {
    out.push(line(['Not optimized: ', code(v8.notOptimized.reason)], 2));
    if (v8.notOptimized.explanation) out.push(line(['Fix: ', code(v8.notOptimized.explanation.fix)], 4));
  }
  if (v8.inlined.length) out.push(line(['Inlined into it: ', joined(v8.inlined.slice(0, 6).map(short), ', '), v8.inlined.length > 6 ? ` +${v8.inlined.length - 6}` : ''], 2));
  if (v8.inlinedInto.length) out.push(line(['Inlined into: ', joined(v8.inlinedInto.slice(0, 6).map(short), ', ')], 2));
  if (v8.notInlined) out.push(line(['Not inlined into its callers: ', code(v8.notInlined.reason), v8.notInlined.explanation ? [' — ', code(v8.notInlined.explanation.fix)] : ''], 2));
  return out;
}
