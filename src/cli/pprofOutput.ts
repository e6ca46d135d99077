/**
 * The CLI's text and JSON for production profiles: what a pprof profile or 0x capture is (producer, the
 * sample type shown and the others, lines or functions only), its labels, the paths that could not be
 * mapped, a heap profile's allocation sites, and what `--pprof` wrote. Every name from the profile goes
 * through `text`/`location` (terminal-safe).
 */
import Table from 'cli-table3';
import type { WrittenPprof } from '../core/pprof/write';
import type { ProfileOrigin } from '../core/profile/origin';
import type { ProfileModel } from '../core/profile/types';
import type { ReportResult } from '../core/workflow/report';
import { formatBytes, formatMs, formatPct } from '../shared/text/numbers';
import { displayPath, int, location, text } from './format';

const plain = { chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ' }, style: { head: [] as string[], border: [] as string[], 'padding-left': 0, 'padding-right': 0 } };

/** An amount in the model's unit, for people. */
export function amount(origin: ProfileOrigin | undefined, value: number): string {
  if (origin?.unit === 'bytes') return formatBytes(value);
  if (origin?.unit === 'objects') return `${int(Math.round(value))} objects`;
  return formatMs(value / 1000);
}

export const FUNCTION_LEVEL_NOTE = 'function-level profile: its frames carry only their function\'s start line, so amounts are shown per function (CodeLens), never on lines';

export function originBlock(model: ProfileModel, cwd: string): string {
  const o = model.origin;
  if (!o) return '';
  const out: string[] = [];
  if (o.format === 'pprof') {
    const others = (o.sampleTypes ?? []).filter((t) => t.type !== o.sampleType?.type).map((t) => text(t.type));
    out.push(`Format: pprof from ${text(o.producer)}; shown: ${text(o.sampleType?.type ?? '?')} (${text(o.sampleType?.unit ?? '?')}${o.sampleType?.reason === 'default' ? ', the default' : ''})${others.length ? `; also in the profile: ${others.join(', ')} (--sample-type)` : ''}`);
  } else {
    out.push('Format: 0x capture (V8\'s tick log; function level; native frames where V8 named them)');
  }
  out.push(o.granularity === 'functions' ? `This is a ${FUNCTION_LEVEL_NOTE}.` : 'Line-level: leaf frames carry the sampled line and callers the line that made the call.');
  if (o.timeMs) out.push(`Recorded ${new Date(o.timeMs).toISOString()}${o.durationMs ? ` over ${formatMs(o.durationMs)}` : ''}`);
  const labels = o.labels;
  if (labels?.filters.length) out.push(`Label filter ${labels.filters.map((f) => text(`${f.key}=${f.value}`)).join(', ')}: ${int(labels.keptSamples)} of ${int(labels.totalSamples)} samples kept`);
  const shown = (labels?.breakdown ?? []).filter((b) => b.distinct <= 100).slice(0, 4);
  for (const b of shown) {
    out.push(`By label "${text(b.key)}" (${formatPct(b.coveragePct)} of the samples carry it): ${b.values.slice(0, 6).map((v) => `${text(v.value)} ${formatPct(v.pct)}`).join(', ')}${b.distinct > 6 ? `, … (${int(b.distinct)} values)` : ''}`);
  }
  const ids = (labels?.breakdown ?? []).filter((b) => b.distinct > 100);
  if (ids.length) out.push(`Labels with many values (not broken down): ${ids.map((b) => `"${text(b.key)}" (${int(b.distinct)}${b.distinct >= 1000 ? '+' : ''})`).join(', ')}`);
  const p = o.paths;
  if (p && p.files) {
    const hows = Object.entries(p.how).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`).join(', ');
    out.push(`Paths: ${p.mapped} of ${p.files} files found in the workspace${hows ? ` (${hows})` : ''}${p.examples.length ? `, e.g. ${text(p.examples[0].from)} → ${displayPath(p.examples[0].to, cwd)}` : ''}`);
    for (const n of p.notFound.slice(0, 8)) out.push(`  not found: ${text(n.file)} — ${text(n.reason)}`);
    if (p.notFoundCount > 8) out.push(`  … ${p.notFoundCount - 8} more (--json lists ${Math.min(p.notFoundCount, p.notFound.length)})`);
  }
  return out.map((l) => `${l}\n`).join('');
}

export function allocationsBlock(r: ReportResult, cwd: string): string {
  const a = r.allocations;
  if (!a) return '';
  const table = new Table({ ...plain, head: ['Function', 'Location', a.unit === 'bytes' ? 'Bytes' : 'Objects', 'Share', 'Where'] });
  const origin = r.model.origin;
  for (const s of a.sites.slice(0, 15)) {
    const where = s.category === 'dependency' ? s.package ?? 'dependency' : s.category === 'node' ? 'Node' : s.category === 'native' ? 'native' : '';
    table.push([text(s.function), location(s.file, s.line, cwd), amount(origin, s.bytes), formatPct(s.pct), text(where)]);
  }
  return `\n${text(a.sampleType)}: ${amount(origin, a.total)} in all.\nSites (by function: heap profiles record the allocating function, not the line):\n${table.toString()}\n`;
}

export function pprofWrittenLines(written: WrittenPprof[], cwd: string): string {
  return written.map((w) => `pprof: ${displayPath(w.path, cwd)} (${text(w.sampleType)}${w.sampleType === 'cpu' ? ` ${formatMs(w.totalValue / 1e6)}, idle left out${w.idleExcludedMs > 0 ? `: ${formatMs(w.idleExcludedMs)}` : ''}` : ''}; ${int(w.totalSamples)} samples; call-site lines on ${w.callerLines.placed} of ${w.callerLines.callerFrames} caller frames of your code)\n`).join('');
}

/** The `pprof` key of the JSON: what the profile is and how it was read. */
export function originJson(model: ProfileModel | undefined) {
  const o = model?.origin;
  if (!o) return undefined;
  return {
    format: o.format, producer: o.producer, unit: o.unit, sampleType: o.sampleType ?? null, sampleTypes: o.sampleTypes ?? [], granularity: o.granularity,
    timeMs: o.timeMs ?? null, durationMs: o.durationMs ?? null,
    labels: o.labels ?? null, paths: o.paths ?? null, skipped: o.skipped,
  };
}

export function writtenJson(written: WrittenPprof[]) {
  return written.map((w) => ({ path: w.path, sampleType: w.sampleType, total: w.totalValue, samples: w.totalSamples, idleExcludedMs: w.idleExcludedMs, callerLines: w.callerLines }));
}

/**
 * `report`'s text with what a production profile adds: the origin block after the heading line, and
 * for a heap profile its allocation sites in place of the time rankings (which would say "ms").
 */
export function renderProductionReport(r: ReportResult, cwd: string, renderReport: (r: ReportResult, cwd: string) => string): string {
  const before = r.diff?.before.origin ? `Before (${displayPath(r.diff.beforePath, cwd)}):\n${originBlock(r.diff.before, cwd).replace(/^/gm, '  ')}` : '';
  const origin = originBlock(r.model, cwd) + before;
  if (r.allocations) {
    const head = `Hotpath report: ${displayPath(r.profilePath, cwd)} (${amount(r.model.origin, r.allocations.total)}, ${int(r.sampleCount)} samples)\n`;
    const warnings = r.warnings.length ? '\nWarnings:\n' + r.warnings.map((w) => `  ⚠ [${w.code}] ${text(w.message)}`).join('\n') + '\n' : '';
    return head + origin + allocationsBlock(r, cwd) + warnings;
  }
  const full = renderReport(r, cwd);
  const nl = full.indexOf('\n');
  return origin ? full.slice(0, nl + 1) + origin + full.slice(nl + 1) : full;
}

export function renderPprofWritten(r: { kind: string; pprofExport?: WrittenPprof }, written: WrittenPprof[], cwd: string): string {
  const all = r.kind === 'report' && r.pprofExport ? [r.pprofExport] : written;
  return all.length ? `\n${pprofWrittenLines(all, cwd)}` : '';
}

/** JSON keys a production profile adds: `pprof` (how it was read), `allocations` (heap), `pprofExports` (what --pprof wrote). */
export function reportExtrasJson(result: { kind: string }, written: WrittenPprof[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const r = result as ReportResult;
  if (r.kind === 'report') {
    const origin = originJson(r.model);
    if (origin) out.pprof = origin;
    if (r.diff?.before.origin) out.pprofBefore = originJson(r.diff.before);
    if (r.allocations) out.allocations = r.allocations;
  }
  const all = r.kind === 'report' && r.pprofExport ? [r.pprofExport] : written;
  if (all.length) out.pprofExports = writtenJson(all);
  return out;
}
