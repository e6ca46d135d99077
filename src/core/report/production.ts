/**
 * What a production profile (pprof, a 0x capture) adds to a report, as model sections: where it came
 * from (format and producer, the sample type shown and the others, lines or functions only, when it was
 * recorded, the label filter and the time by label, the paths mapped to the workspace and those not
 * found, with why), a heap profile's allocation sites in its own unit, and what `--pprof` wrote. Every
 * renderer shows them, so a number is never read in the wrong unit or at a finer grain than the profile
 * has — a function-level profile says so on every surface.
 */
import { formatInt } from '../../shared/text/numbers';
import type { AllocationSite } from '../memory/sites';
import type { WrittenPprof } from '../pprof/write';
import type { ProfileOrigin } from '../profile/origin';
import type { ProfileModel } from '../profile/types';
import { bytes, code, fn, type Inline, int, joined, line, type Line, loc, ms, type Num, numText, pathRef, pct, prose, section, type Section, table, text } from './model';

export const FUNCTION_LEVEL_NOTE = 'function-level profile: its frames carry only their function\'s start line, so amounts are shown per function (CodeLens), never on lines';

/** Why a function-level profile's hot-line table has no rows (said where the rows would be). */
export const NO_LINES_NOTE = 'None: a function-level profile records no lines, only each function\'s start line — see the hotspots (per function).';

export const isFunctionLevel = (model: ProfileModel | undefined): boolean => model?.origin?.granularity === 'functions';

/** An amount in the model's unit: time (the model holds µs), bytes, or objects. */
export function amountNum(origin: ProfileOrigin | undefined, value: number): Num {
  if (origin?.unit === 'bytes') return bytes(value);
  if (origin?.unit === 'objects') return numText(value, `${formatInt(Math.round(value))} objects`);
  return ms(value / 1000);
}

/** The lines that say what the profile is and how it was read (the CLI prints them under the title line). */
export function originLines(o: ProfileOrigin, indent = 0): Line[] {
  const out: Line[] = [];
  const at = (t: Inline, more = 0) => out.push(line(t, indent + more));
  if (o.format === 'pprof') {
    const others = (o.sampleTypes ?? []).filter((t) => t.type !== o.sampleType?.type).map((t) => code(t.type));
    at(['Format: pprof from ', code(o.producer), '; shown: ', code(o.sampleType?.type ?? '?'), ' (', code(o.sampleType?.unit ?? '?'), o.sampleType?.reason === 'default' ? ', the default' : '', ')',
      others.length ? ['; also in the profile: ', joined(others, ', '), ' (--sample-type)'] : '']);
  } else {
    at('Format: 0x capture (V8\'s tick log; function level; native frames where V8 named them)');
  }
  at(o.granularity === 'functions' ? `This is a ${FUNCTION_LEVEL_NOTE}.` : 'Line-level: leaf frames carry the sampled line and callers the line that made the call.');
  if (o.timeMs) at(['Recorded ', new Date(o.timeMs).toISOString(), o.durationMs ? [' over ', ms(o.durationMs)] : '']);
  const labels = o.labels;
  if (labels?.filters.length) at(['Label filter ', joined(labels.filters.map((f) => code(`${f.key}=${f.value}`)), ', '), ': ', int(labels.keptSamples), ' of ', int(labels.totalSamples), ' samples kept']);
  for (const b of (labels?.breakdown ?? []).filter((x) => x.distinct <= 100).slice(0, 4)) {
    at(['By label "', code(b.key), '" (', pct(b.coveragePct), ' of the samples carry it): ', joined(b.values.slice(0, 6).map((v): Inline => [code(v.value), ' ', pct(v.pct)]), ', '),
      b.distinct > 6 ? [', … (', int(b.distinct), ' values)'] : '']);
  }
  const ids = (labels?.breakdown ?? []).filter((b) => b.distinct > 100);
  if (ids.length) at(['Labels with many values (not broken down): ', joined(ids.map((b): Inline => ['"', code(b.key), '" (', int(b.distinct), b.distinct >= 1000 ? '+' : '', ')']), ', ')]);
  const p = o.paths;
  if (p && p.files) {
    const hows = Object.entries(p.how).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`).join(', ');
    const example = p.examples[0];
    at([`Paths: ${p.mapped} of ${p.files} files found in the workspace`, hows ? ` (${hows})` : '', example ? [', e.g. ', code(example.from), ' → ', pathRef(example.to)] : '']);
    for (const n of p.notFound.slice(0, 8)) at(['not found: ', code(n.file), ' — ', prose(n.reason)], 2);
    if (p.notFoundCount > 8) at(`… ${p.notFoundCount - 8} more (--json lists ${Math.min(p.notFoundCount, p.notFound.length)})`, 2);
  }
  return out;
}

/**
 * The origin of a report's profile, and of the profile it is compared with (`report --diff`), right
 * under the title line; undefined for a .cpuprofile compared with nothing of another format.
 */
export function originSection(model: ProfileModel, before?: { path: string; model: ProfileModel }): Section | undefined {
  const lines = model.origin ? originLines(model.origin) : [];
  if (before?.model.origin) lines.push(line(['Before (', pathRef(before.path), '):']), ...originLines(before.model.origin, 2));
  return lines.length ? section('origin', [text(lines)], false) : undefined;
}

/** How an allocation site's function is reached: a package, Node, native code, or (user code) nothing to say. */
const whereOf = (s: AllocationSite): string => (s.category === 'dependency' ? s.package ?? 'dependency' : s.category === 'node' ? 'Node' : s.category === 'native' ? 'native' : '');

export interface ProfileAllocations {
  sampleType: string;
  unit: 'bytes' | 'objects';
  total: number;
  sites: AllocationSite[];
}

/** A heap profile's sites, by function, in its own unit (bytes or objects). */
export function allocationsSection(a: ProfileAllocations, origin: ProfileOrigin | undefined, max = 15): Section {
  const rows = a.sites.slice(0, max).map((s) => ({ cells: [fn(s.function), loc(s.file, s.line), amountNum(origin, s.bytes), pct(s.pct), whereOf(s) ? code(whereOf(s)) : ''] }));
  return section('memory', [
    text([[code(a.sampleType), ': ', amountNum(origin, a.total), ' in all.']]),
    table([['function', 'Function'], ['location', 'Location'], ['amount', a.unit === 'bytes' ? 'Bytes' : 'Objects'], ['pct', 'Share'], ['where', 'Where']], rows,
      { title: 'Sites (by function: heap profiles record the allocating function, not the line)', ...(a.sites.length > max ? { more: { count: a.sites.length - max } } : {}) }),
  ]);
}

/** A heap profile's headline: the site with the most, in the profile's unit. */
export function allocationsHeadline(a: ProfileAllocations, origin: ProfileOrigin | undefined): Inline {
  const top = a.sites.find((s) => s.category === 'user') ?? a.sites[0];
  const kind = ` · heap profile${origin?.granularity === 'functions' ? ', function level' : ''}`;
  if (!top) return ['No allocations in this profile', kind];
  return [fn(top.function), ' in ', loc(top.file, top.line), ': ', pct(top.pct), ' of ', code(a.sampleType), ' (', amountNum(origin, top.bytes), ')', kind];
}

/** `pprof: out.pb.gz (cpu 1,430 ms, idle left out; 6 samples; call-site lines on 4 of 4 caller frames of your code)`. */
export function pprofWrittenSection(written: readonly WrittenPprof[]): Section | undefined {
  if (!written.length) return undefined;
  return section('files', [text(written.map((w): Inline => [
    'pprof: ', pathRef(w.path), ' (', code(w.sampleType),
    w.sampleType === 'cpu' ? [' ', ms(w.totalValue / 1e6), ', idle left out', w.idleExcludedMs > 0 ? [': ', ms(w.idleExcludedMs)] : ''] : '',
    '; ', int(w.totalSamples), ` samples; call-site lines on ${w.callerLines.placed} of ${w.callerLines.callerFrames} caller frames of your code)`,
  ]))]);
}
