/** Texts of CodeLens, after-line labels and hovers (no vscode import; unit-tested in plain Node). */
import type { DeoptAnnotation, FunctionAnnotation, LineAnnotation, CallerShare } from '../../core/annotate';
import type { Explanation, V8FunctionSignals } from '../../core/v8/types';
import { formatInt, formatMs, formatPct as pct, mdCode, mdEscape } from '../../shared/text';

export { formatMs };

/** `12.3% self · 31.0% total · 410 ms`, plus V8's one-line view when signals were collected. */
export function codeLensText(f: FunctionAnnotation, v8Summary?: string, edited = false): string {
  const base = `${pct(f.selfPct)} self · ${pct(f.totalPct)} total · ${formatMs(f.selfMs)}`;
  return `${base}${v8Summary ? ` · ${v8Summary}` : ''}${edited ? ' · edited since profiling' : ''}`;
}

/** After-line label: `4.2% · 61 ms`. */
export function lineLabel(l: LineAnnotation): string {
  return `${pct(l.selfPct)} · ${formatMs(l.selfMs)}`;
}

/** Heat bucket 1..4 of a line's share; the decoration types and contributed colours follow these. */
export function heatBucket(selfPct: number): 1 | 2 | 3 | 4 {
  if (selfPct >= 10) return 4;
  if (selfPct >= 3) return 3;
  if (selfPct >= 1) return 2;
  return 1;
}

function callerList(callers: readonly CallerShare[], base: (file: string) => string): string {
  if (!callers.length) return '';
  return `\n\n**Top callers**\n\n${callers.map((c) => `- ${mdCode(c.function)} ${mdEscape(base(c.file))}${c.line ? `:${c.line}` : ''} — ${pct(c.sharePct)}`).join('\n')}`;
}

/** Hover Markdown for a hot line. Every profile string is escaped: names and paths are program-controlled. */
export function lineHover(l: LineAnnotation, profileName: string, base: (file: string) => string): string {
  const inlined = l.maybeInlined
    ? `\n\nV8 charged this time to ${mdCode(l.function)}, but the line lies outside it: it most likely ran inlined${l.inlinedFunction ? ` as ${mdCode(l.inlinedFunction)}` : ''}.`
    : '';
  return `**Self time**: ${formatMs(l.selfMs)} (${pct(l.selfPct)} of the profile), ≈ ${formatInt(l.samples)} samples` +
    `\n\n**Function**: ${mdCode(l.function)}${inlined}${callerList(l.callers, base)}\n\n_Profile: ${mdEscape(profileName)}_`;
}

/** Hover Markdown for a hot function's declaration line. */
export function functionHover(f: FunctionAnnotation, profileName: string, base: (file: string) => string, v8Markdown?: string): string {
  return `**${mdCode(f.function)}** — #${f.rank} by self time\n\n` +
    `**Self time**: ${formatMs(f.selfMs)} (${pct(f.selfPct)}) · **Total**: ${formatMs(f.totalMs)} (${pct(f.totalPct)})` +
    `${v8Markdown ? `\n\n${v8Markdown}` : ''}${callerList(f.callers, base)}\n\n_Profile: ${mdEscape(profileName)}_`;
}

/** After-line label of a deopt position: `deopt: wrong map ×3`. */
export function deoptLabel(d: DeoptAnnotation): string {
  return `deopt: ${d.reason}${d.count > 1 ? ` ×${d.count}` : ''}`;
}

function explanationMd(e: Explanation | undefined): string {
  return e ? `\n\n**${mdEscape(e.title)}** — ${mdEscape(e.text)}\n\n**Fix**: ${mdEscape(e.fix)}` : '';
}

/** Hover Markdown of a deopt position: what V8 assumed, that it failed here, and the usual fix. */
export function deoptHover(d: DeoptAnnotation): string {
  const where = d.inlinedFrom ? ` (in ${mdCode(d.inlinedFrom)}, inlined there)` : '';
  return `**V8 deoptimized ${mdCode(d.function)} here**${where}: ${mdEscape(d.reason)} (${mdEscape(d.kind)}), ${d.count}×.` + explanationMd(d.explanation);
}

/** The V8 part of a hot function's hover: tier, (de)optimizations, inlining, with explanations. */
export function v8FunctionMarkdown(v: V8FunctionSignals): string {
  const parts = [`**V8**: ${mdEscape(v.tier === 'unknown' ? 'tier unknown' : v.tier)} · optimized ${v.optimizations}×`];
  if (v.notOptimized) parts.push(`**Not optimized**: ${mdEscape(v.notOptimized.reason)}${explanationMd(v.notOptimized.explanation)}`);
  const real = v.deopts.filter((d) => !d.osr);
  if (real.length) {
    parts.push(`**Deopts**\n\n${real.slice(0, 5).map((d) => `- ${mdEscape(d.reason)} (${mdEscape(d.kind)}) ×${d.count}${d.line ? ` at ${mdEscape(d.file.split('/').pop() ?? d.file)}:${d.line}` : ''}`).join('\n')}`);
    const first = real.find((d) => d.explanation);
    if (first) parts.push(explanationMd(first.explanation).trim());
  }
  const osr = v.deopts.filter((d) => d.osr).reduce((n, d) => n + d.count, 0);
  if (osr) parts.push(`_${osr} on-stack-replacement exit${osr > 1 ? 's' : ''} not counted (V8 bookkeeping, not a failed assumption)._`);
  if (v.inlined.length) parts.push(`**Inlined into it**: ${v.inlined.slice(0, 6).map(mdCode).join(', ')}${v.inlined.length > 6 ? ` +${v.inlined.length - 6}` : ''}`);
  if (v.inlinedInto.length) parts.push(`**Inlined into**: ${v.inlinedInto.slice(0, 6).map(mdCode).join(', ')}`);
  if (v.notInlined) parts.push(`**Not inlined**: ${mdEscape(v.notInlined.reason)}${explanationMd(v.notInlined.explanation)}`);
  return parts.join('\n\n');
}
