import type { HotpathError } from '../core/common/errors';
import type { ThreadHotLine, ThreadHotspot, ThreadPackage } from '../core/workflow/analyze';
import type { BaselineResult, VerifyResult } from '../core/workflow/baseline';
import type { ProfileResult } from '../core/workflow/profileWithLoad';
import type { ScriptResult } from '../core/workflow/profileScript';
import type { ReportResult } from '../core/workflow/report';
import type { V8FunctionSignals } from '../core/v8/types';
import type { LeakResult, LeakSummary } from '../core/workflow/leakCheck';

export type AnyResult = ProfileResult | ScriptResult | BaselineResult | VerifyResult | ReportResult | LeakResult;

/** `leak`: the verdict, growth per request with its interval, the rungs and the retaining sites. */
function leakJson(l: LeakSummary) {
  return {
    verdict: l.verdict, bytesPerRequest: l.bytesPerRequest, ciLow: l.ciLow, ciHigh: l.ciHigh,
    rungs: l.rungs, sites: l.sites, requests: l.requests, observations: l.n, df: l.df,
    samplingIntervalBytes: l.samplingIntervalBytes, heapProfilePath: l.heapProfilePath,
  };
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** `hotspots[].v8`: tier, optimizations, deopts, inlining, and why not optimized / not inlined when known. */
function v8Json(s: V8FunctionSignals) {
  return {
    tier: s.tier,
    optimizations: s.optimizations,
    deopts: s.deopts.map((d) => ({
      kind: d.kind, reason: d.reason, file: d.file, line: d.line, column: d.column, count: d.count, osr: d.osr,
      inlinedFrom: d.inlinedFrom ?? null, inlinedInto: d.inlinedInto ?? null, explanation: d.explanation ?? null,
    })),
    inlinedInto: s.inlinedInto,
    inlined: s.inlined,
    notOptimized: s.notOptimized ?? null,
    notInlined: s.notInlined ?? null,
  };
}

function hotspotJson(h: ThreadHotspot) {
  return {
    rank: h.rank, function: h.function, file: h.file, line: h.line, column: h.column,
    selfMs: round(h.selfMs), selfPct: round(h.selfPct), totalMs: round(h.totalMs), totalPct: round(h.totalPct),
    ownMs: round(h.ownMs), ownPct: round(h.ownPct),
    ownParts: h.ownParts.map((p) => ({ ...p, ms: round(p.ms), pct: round(p.pct) })),
    category: h.category, package: h.package ?? null, userCaller: h.userCaller ?? null, asyncContext: h.asyncContext,
    inlinedMs: round(h.inlinedMs), inlinedInto: h.inlinedInto, notPlacedMs: round(h.notPlacedMs), notPlacedReasons: h.notPlacedReasons,
    unplacedCalls: h.unplacedCalls.map((c) => ({ ...c, ms: round(c.ms), pct: round(c.pct) })),
    sourceNotInstalled: h.sourceNotInstalled,
    thread: h.thread,
    ...(h.v8 ? { v8: v8Json(h.v8) } : {}),
  };
}

function lineJson(l: ThreadHotLine) {
  const inlined = l.placement !== 'own';
  return {
    file: l.file, line: l.line, selfMs: round(l.selfMs), selfPct: round(l.selfPct), totalMs: round(l.totalMs), totalPct: round(l.totalPct),
    ownMs: round(l.ownMs), ownPct: round(l.ownPct), function: l.function, placement: l.placement, inlinedInto: l.inlinedInto,
    calls: l.calls.map((c) => ({ ...c, totalMs: round(c.totalMs), totalPct: round(c.totalPct) })),
    // Kept from the first JSON version: the line's code ran inlined in another function's frame.
    maybeInlined: inlined, inlinedFunction: inlined ? l.function : null,
    thread: l.thread,
  };
}

function packageJson(p: ThreadPackage) {
  return { package: p.package, selfMs: round(p.selfMs), selfPct: round(p.selfPct), totalMs: round(p.totalMs), totalPct: round(p.totalPct), thread: p.thread };
}

/**
 * The one JSON document `--json` prints (schema documented in the README). Every command has the
 * same top-level keys, so scripts can read `warnings` or `hotspots` without caring which ran.
 */
export function toJson(result: AnyResult): object {
  const base = { version: 1, command: result.kind, warnings: result.warnings };
  const analysis = 'hotspots' in result
    ? {
      hotspots: result.hotspots.map(hotspotJson), lines: result.lines.map(lineJson), packages: result.packages.map(packageJson),
      ...(result.v8 ? { v8: result.v8 } : {}),
      ...(result.checks ? { checks: result.checks } : {}),
    }
    : { hotspots: [], lines: [], packages: [] };
  switch (result.kind) {
    case 'profile':
      return {
        ...base, target: result.target, load: result.load, loadOptions: result.loadOptions, profilePath: result.profilePath, profiles: result.profiles, samplingIntervalMicros: result.samplingIntervalMicros,
        ...(result.memory ? { memory: result.memory } : {}), ...(result.eventLoop ? { eventLoop: result.eventLoop } : {}), ...analysis,
      };
    case 'script':
      return { ...base, target: result.target, load: null, durationMs: result.durationMs, profilePath: result.profilePath, profiles: result.profiles, samplingIntervalMicros: result.samplingIntervalMicros, ...analysis };
    case 'report':
      return { ...base, load: null, profilePath: result.profilePath, durationMs: round(result.durationMs), sampleCount: result.sampleCount, ...analysis };
    case 'baseline':
      return { ...base, name: result.name, baselinePath: result.path, target: result.target, load: result.load, loadOptions: result.loadOptions, runs: result.runs, summary: result.summary, ...(result.leak ? { leak: leakJson(result.leak) } : {}), profilePath: null, ...analysis };
    case 'verify':
      return {
        ...base, name: result.name, target: result.target, load: result.load, loadOptions: result.loadOptions, runs: result.runs, baseline: result.baseline, comparison: result.comparison,
        ...(result.leak ? { leak: leakJson(result.leak), leakComparison: result.leakComparison ?? null } : {}), profilePath: null, ...analysis,
      };
    case 'leak':
      return {
        ...base, name: result.name, target: result.target, load: result.load, loadOptions: result.loadOptions, leak: leakJson(result.leak),
        previous: result.previous, checks: result.checks, profilePath: null, ...analysis,
      };
  }
}

export function errorJson(err: HotpathError): object {
  return { version: 1, error: { code: err.code, message: err.message }, warnings: [] };
}
