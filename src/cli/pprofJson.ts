/**
 * The JSON keys a production profile adds to `--json`: `pprof` (what the profile is and how it was
 * read), `pprofBefore` (the `--diff` side), `allocations` (a heap profile's sites) and `pprofExports`
 * (what `--pprof` wrote). The text of the same facts is the report model's (src/core/report/production.ts).
 */
import type { WrittenPprof } from '../core/pprof/write';
import type { ProfileModel } from '../core/profile/types';
import type { ReportResult } from '../core/workflow/report';

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
