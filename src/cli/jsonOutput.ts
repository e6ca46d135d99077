import { ErrorCode, type HotpathError } from '../core/common/errors';
import type { ThreadHotLine, ThreadHotspot, ThreadPackage } from '../core/workflow/analyze';
import type { BaselineResult, VerifyResult } from '../core/workflow/baseline';
import type { ProfileResult } from '../core/workflow/profileWithLoad';
import type { ScriptResult } from '../core/workflow/profileScript';
import type { ReportResult } from '../core/workflow/report';
import type { StartupResult } from '../core/workflow/startup';
import type { StartupVariantsResult } from '../core/workflow/startupCompare';
import type { ModuleRow } from '../core/startup/moduleTree';
import type { BenchResult } from '../core/workflow/bench';
import type { BenchTask } from '../core/bench/aggregate';
import type { V8FunctionSignals } from '../core/v8/types';
import type { CompareResult } from '../core/workflow/compare';

import type { LeakResult, LeakSummary } from '../core/workflow/leakCheck';

export type AnyResult = ProfileResult | ScriptResult | BaselineResult | VerifyResult | ReportResult | CompareResult | StartupResult | BenchResult | StartupVariantsResult | LeakResult;

/** `leak`: the verdict, growth per request with its interval, the rungs and the retaining sites. */
function leakJson(l: LeakSummary) {
  return {
    verdict: l.verdict, bytesPerRequest: l.bytesPerRequest, ciLow: l.ciLow, ciHigh: l.ciHigh,
    rungs: l.rungs, sites: l.sites, requests: l.requests, observations: l.n, df: l.df,
    samplingIntervalBytes: l.samplingIntervalBytes, heapProfilePath: l.heapProfilePath, heapCeiling: l.heapCeiling, crash: l.crash,
  };
}

/** A leak check the app did not survive: the document carries the error too (exit code 1), beside what was measured. */
function leakCrashError(l: LeakSummary | undefined) {
  return l?.crash ? { error: { code: ErrorCode.TargetExited, message: l.crash.message } } : {};
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** `hotspots[].v8`: tier, optimizations, deopts, inlining, and why not optimized / not inlined when known. */
export function v8Json(s: V8FunctionSignals) {
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
    ...(s.ranInlinedIn ? { ranInlinedIn: s.ranInlinedIn } : {}),
    ...(s.ownTier ? { ownTier: s.ownTier } : {}),
    ...(s.ranInlinedOsr ? { ranInlinedOsr: true } : {}),
    ...(s.ranInlinedShare !== undefined ? { ranInlinedShare: Math.floor(s.ranInlinedShare * 1000) / 1000 } : {}),
    ...(s.tierUnknown ? { tierUnknown: s.tierUnknown } : {}),
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

function moduleJson(m: ModuleRow) {
  return {
    module: m.module, package: m.package, file: m.file, requiredFrom: m.requiredFrom, selfMs: round(m.selfMs, 3), totalMs: round(m.totalMs, 3),
    modules: m.modules, format: m.format, timing: m.timing, runs: m.runs, parent: m.parent,
  };
}

/** `startup`: the acceptance shape first ({runs, warmup, meanMs, stddevMs, medianMs, minMs, maxMs, outliers[], modules[]}), then the rest. */
function startupJson(r: StartupResult) {
  const s = r.startup;
  return {
    runs: s.runs, warmup: s.warmup, meanMs: round(s.meanMs), stddevMs: round(s.stddevMs), medianMs: round(s.medianMs), minMs: round(s.minMs), maxMs: round(s.maxMs),
    outliers: s.outliers.map((o) => ({ run: o.run, ms: round(o.ms), modifiedZ: round(o.modifiedZ) })),
    modules: s.modules.map(moduleJson),
    end: s.end,
    meanHalfWidthPct: s.meanHalfWidthPct === null ? null : round(s.meanHalfWidthPct),
    runsMs: s.runsMs.map((x) => round(x)),
    phases: { launchMs: nullableRound(s.phases.launchMs), bootstrapMs: nullableRound(s.phases.bootstrapMs), appMs: nullableRound(s.phases.appMs) },
    cpuMs: nullableRound(s.cpuMs),
    packages: s.packages.map((p) => ({ ...p, selfMs: round(p.selfMs), totalMs: round(p.totalMs) })),
    moduleHookMs: nullableRound(s.moduleHookMs, 3),
    profileRuns: s.profileRuns,
    samplingIntervalMicros: s.samplingIntervalMicros,
    compileCache: s.compileCache ? { pairs: s.compileCache.pairs, withMs: round(s.compileCache.withMs), withoutMs: round(s.compileCache.withoutMs), comparison: comparisonJson(s.compileCache.comparison) } : null,
  };
}

const interval = (ci: { low: number; high: number } | null, digits = 2) => (ci ? { low: round(ci.low, digits), high: round(ci.high, digits) } : null);

/** `bench.tasks[]`: the acceptance shape ({name, opsPerSec, rme, samples, meanNs, p99Ns, v8, warnings[]}), then intervals and per-process means. */
function benchTaskJson(t: BenchTask) {
  return {
    name: t.name, opsPerSec: round(t.opsPerSec), rme: t.rme === null ? null : round(t.rme), samples: t.samples, meanNs: round(t.meanNs, 3), p99Ns: round(t.p99Ns, 3),
    v8: t.v8 ? v8Json(t.v8) : null, warnings: t.warnings,
    opsPerSecCi: interval(t.opsPerSecCi), meanNsCi: interval(t.meanNsCi, 3), p99NsCi: interval(t.p99NsCi, 3), runs: t.runs, runMeansNs: t.runMeansNs.map((x) => round(x, 3)),
  };
}

function benchJson(r: BenchResult) {
  return {
    file: r.file, harness: r.harness, harnessVersion: r.harnessVersion, nodeVersion: r.nodeVersion, runs: r.runs,
    tasks: r.tasks.map(benchTaskJson),
    ...(r.against ? { against: { file: r.against.file, tasks: r.against.tasks.map(benchTaskJson) } } : {}),
    ...(r.comparison ? { comparison: { kind: r.comparison.kind, a: r.comparison.a, b: r.comparison.b, summary: r.comparison.summary, ...comparisonJson(r.comparison), pairs: r.comparison.pairs } } : {}),
    ...(r.baselinePath ? { baselinePath: r.baselinePath } : {}),
  };
}

const nullableRound = (n: number | null, digits = 2) => (n === null ? null : round(n, digits));

/** An interleaved comparison: `{verdict, pairs, metrics: {<name>: {ratio, ciLow, ciHigh, pValue, …}}}` (the shape `hotpath compare` uses). */
export function comparisonJson(c: import('../core/workflow/abEngine').MetricComparisonSet) {
  return {
    verdict: c.verdict, pairs: c.n.a, method: c.method, correction: c.correction, confidenceLevel: c.confidenceLevel,
    metrics: Object.fromEntries(Object.entries(c.metrics).map(([name, m]) => [name, {
      ratio: round(m.ratio, 4), ciLow: m.ciLow === null ? null : round(m.ciLow, 4), ciHigh: m.ciHigh === null ? null : round(m.ciHigh, 4),
      pValue: m.pValue === null ? null : Number(m.pValue.toPrecision(3)), significant: m.significant, change: m.change,
      a: round(m.a.geomean, 4), b: round(m.b.geomean, 4), unit: m.unit,
    }])),
  };
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
      return { ...base, load: null, profilePath: result.profilePath, durationMs: round(result.durationMs), sampleCount: result.sampleCount, ...analysis, ...(result.diff ? { diff: { beforePath: result.diff.beforePath, functions: result.diff.functions, matched: result.diff.matched, compared: result.diff.compared } } : {}) };
    case 'baseline':
      return { ...base, name: result.name, baselinePath: result.path, target: result.target, load: result.load, loadOptions: result.loadOptions, runs: result.runs, summary: result.summary, ...(result.leak ? { leak: leakJson(result.leak) } : {}), ...leakCrashError(result.leak), profilePath: null, ...analysis };
    case 'verify':
      return {
        ...base, name: result.name, target: result.target, load: result.load, loadOptions: result.loadOptions, runs: result.runs, baseline: result.baseline, comparison: result.comparison,
        interleavedCompare: result.interleavedCompare ?? null,
        ...(result.leak ? { leak: leakJson(result.leak), leakComparison: result.leakComparison ?? null } : {}), ...leakCrashError(result.leak), profilePath: null, ...analysis,
      };
    case 'compare':
      // Required here: the comparison's renderers (and the statistics under them) only for a comparison.
      return (require('./compareOutput') as typeof import('./compareOutput')).compareJson(result, null);
    case 'startup-compare':
      return { version: 1, command: 'startup', warnings: result.warnings, sides: result.sides, comparison: { ...comparisonJson(result.comparison), pairs: result.comparison.pairs, summary: result.comparison.summary }, hotspots: [], lines: [], packages: [] };
    case 'startup-bisect':
      return {
        version: 1, command: 'startup', warnings: result.warnings,
        bisect: {
          candidates: result.candidates, firstSlower: result.firstSlower, lastGood: result.lastGood, summary: result.summary,
          steps: result.steps.map((st) => ({ ...st, ratio: round(st.ratio, 4), ciLow: st.ciLow === null ? null : round(st.ciLow, 4), ciHigh: st.ciHigh === null ? null : round(st.ciHigh, 4), pValue: st.pValue === null ? null : Number(st.pValue.toPrecision(3)) })),
          ...(result.step ? { step: { sides: result.step.sides, comparison: { ...comparisonJson(result.step.comparison), pairs: result.step.comparison.pairs, summary: result.step.comparison.summary } } } : {}),
        },
        hotspots: [], lines: [], packages: [],
      };
    case 'bench':
      return { version: 1, command: 'bench', warnings: result.warnings, bench: benchJson(result), ...(result.v8 ? { v8: result.v8 } : {}), hotspots: [], lines: [], packages: [] };
    case 'startup':
      return { ...base, target: result.target, load: null, startup: startupJson(result), advice: result.advice, profilePath: result.profilePath, profiles: result.profiles, ...analysis };
    case 'leak':
      return {
        ...base, name: result.name, target: result.target, load: result.load, loadOptions: result.loadOptions, leak: leakJson(result.leak),
        previous: result.previous, checks: result.checks, ...leakCrashError(result.leak), profilePath: null, ...analysis,
      };
  }
}

export function errorJson(err: HotpathError): object {
  return { version: 1, error: { code: err.code, message: err.message }, warnings: [] };
}
