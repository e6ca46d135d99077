/** Texts of CodeLens, after-line labels and hovers (no vscode import; unit-tested in plain Node). */
import type { CalleeShare, DeoptAnnotation, FunctionAnnotation, LineAnnotation, CallerShare } from '../../core/annotate';
import type { Explanation, V8FunctionSignals } from '../../core/v8/types';
import { formatInt, formatMs, formatPct as pct, labelText, mdCode, mdEscape } from '../../shared/text';
import { ownMatters } from '../../core/attribution/rank';
import { threadNote } from '../../core/profile/threads';

export { formatMs };

/** `pbkdf2Sync (node:crypto)`: a callee and where its time ran. */
export function calleeText(c: CalleeShare): string {
  return `${c.function}${c.where ? ` (${c.where})` : ''}`;
}


/**
 * CodeLens above a hot function: `85.0% own (84.0% in pbkdf2Sync, node:crypto) · 0.1% self · 85.2% total · 2,563 ms`
 * when its callees carry the cost, else `12.3% self · 31.0% total · 410 ms`; then V8's view, code that could
 * not be placed, and an edit note.
 */
export function codeLensText(f: FunctionAnnotation, v8Summary?: string, edited = false, functionLevel = false): string {
  const top = f.ownParts[0];
  const base = ownMatters(f)
    ? `${pct(f.ownPct)} own${top ? ` (${pct(top.pct)} in ${top.function}${top.where ? `, ${top.where}` : ''})` : ''} · ${pct(f.selfPct)} self · ${pct(f.totalPct)} total · ${formatMs(f.ownMs)}`
    : `${pct(f.selfPct)} self · ${pct(f.totalPct)} total · ${formatMs(f.selfMs)}`;
  const notPlaced = f.notPlaced && f.notPlaced.pct >= 0.1 ? ` · ${pct(f.notPlaced.pct)} inlined code not placed` : '';
  const thread = threadNote(f.threads);
  // A function-level profile (most pprof producers, 0x) has no lines: say so where lines would be expected.
  return labelText(`${base}${v8Summary ? ` · ${v8Summary}` : ''}${notPlaced}${thread ? ` · ${thread}` : ''}${functionLevel ? ' · function-level profile' : ''}${edited ? ' · edited since profiling' : ''}`);
}

/** A line whose calls, not its own code, carry its time. */
export function isCallLine(l: LineAnnotation): boolean {
  return l.totalPct >= l.selfPct * 1.5 + 0.1;
}

/** After-line label: `4.2% · 61 ms`, or `84.1% total · 0.1% self` on a line whose calls cost more than its own code. */
export function lineLabel(l: LineAnnotation): string {
  if (isCallLine(l)) return `${pct(l.totalPct)} total · ${pct(l.selfPct)} self`;
  return `${pct(l.selfPct)} · ${formatMs(l.selfMs)}${l.placement !== 'own' ? ' (inlined)' : ''}`;
}

/** Heat bucket 1..4 of a line's share; the decoration types and contributed colours follow these. */
export function heatBucket(sharePct: number): 1 | 2 | 3 | 4 {
  if (sharePct >= 10) return 4;
  if (sharePct >= 3) return 3;
  if (sharePct >= 1) return 2;
  return 1;
}

/**
 * Which heat a line gets: its own time (self plus the dependency, Node and native code it calls: what a
 * change to it can remove) in the main heat; a line that only calls user code elsewhere in the lighter
 * call heat, by its total.
 */
export function lineHeat(l: LineAnnotation): { kind: 'own' | 'call'; bucket: 1 | 2 | 3 | 4 } {
  if (l.ownPct >= 0.1 || l.totalPct < 0.1) return { kind: 'own', bucket: heatBucket(Math.max(l.ownPct, l.selfPct)) };
  return { kind: 'call', bucket: heatBucket(l.totalPct) };
}

function callerList(callers: readonly CallerShare[], base: (file: string) => string): string {
  if (!callers.length) return '';
  const where = (c: CallerShare) => {
    if (c.inlined) return `${mdEscape(base(c.file))}${c.line ? `:${c.line}` : ''} (ran inlined into it)`;
    if (c.callSite) return `${mdEscape(base(c.file))}:${c.line}`;
    if (c.candidateLines?.length) return `${mdEscape(base(c.file))}, one of lines ${c.candidateLines.join(', ')}`;
    return `${mdEscape(base(c.file))}${c.line ? `:${c.line}` : ''}`;
  };
  return `\n\n**Top callers**\n\n${callers.map((c) => `- ${mdCode(c.function)} ${where(c)} — ${pct(c.sharePct)}`).join('\n')}`;
}

function callsList(calls: readonly CalleeShare[]): string {
  if (!calls.length) return '';
  return `\n\n**Calls here**\n\n${calls.map((c) => `- → ${mdCode(c.function)}${c.where ? ` (${mdEscape(c.where)})` : ''} ${pct(c.pct)} · ${formatMs(c.ms)}`).join('\n')}`;
}

/**
 * In a profile of several threads: which of them ran this code, and what the shares are of. Thread
 * labels carry a worker's file name (program text): escaped.
 */
function threadsLine(threads: readonly string[] | undefined, all: readonly string[] | undefined): string {
  if (!all || all.length < 2) return '';
  const ran = threads?.length ? threads.map(mdCode).join(', ') : 'not known';
  return `\n\n**Threads**: ran in ${ran} — shares are of all ${all.length} threads' time together (${all.map(mdCode).join(', ')})`;
}

/** Hover Markdown for a hot line. Every profile string is escaped: names and paths are program-controlled. */
export function lineHover(l: LineAnnotation, profileName: string, base: (file: string) => string, allThreads?: readonly string[]): string {
  const placement = l.placement === 'own' ? ''
    : l.placement === 'inlined'
      ? `\n\nThis code ran inlined into ${mdCode(l.inlinedInto ?? '?')} (V8 reported the inlining): V8 charged it to that function's frame; Hotpath shows it here, where the code is.`
      : `\n\nThis code most likely ran inlined into ${mdCode(l.inlinedInto ?? '?')}: inferred from the source (V8's inlining facts were not collected in this run).`;
  const totals = isCallLine(l) || l.ownPct > l.selfPct + 0.05
    ? ` · **Own**: ${formatMs(l.ownMs)} (${pct(l.ownPct)}) · **Total**: ${formatMs(l.totalMs)} (${pct(l.totalPct)})`
    : '';
  const samples = l.samples > 0 ? `, ≈ ${formatInt(l.samples)} samples` : '';
  return `**Self time**: ${formatMs(l.selfMs)} (${pct(l.selfPct)} of the profile)${samples}${totals}` +
    `${callsList(l.calls)}\n\n**Function**: ${mdCode(l.function)}${placement}${threadsLine(l.threads, allThreads)}${callerList(l.callers, base)}\n\n_Profile: ${mdEscape(profileName)}_`;
}

/** Hover Markdown for a hot function's declaration line. */
export function functionHover(f: FunctionAnnotation, profileName: string, base: (file: string) => string, v8Markdown?: string, allThreads?: readonly string[]): string {
  const parts = f.ownParts.length
    ? `\n\n**Own cost**: ${formatMs(f.ownMs)} (${pct(f.ownPct)}) — its own lines plus the code it calls directly in dependencies, Node and natives:\n\n${f.ownParts.map((p) => `- → ${mdCode(p.function)}${p.where ? ` (${mdEscape(p.where)})` : ''} ${pct(p.pct)}${p.callLine ? ` at line ${p.callLine}` : ''}`).join('\n')}`
    : '';
  const notPlaced = f.notPlaced
    ? `\n\n**Inlined code, not placed**: ${formatMs(f.notPlaced.ms)} (${pct(f.notPlaced.pct)}) — V8 charged it to this function, but the profile does not say which line it ran on${f.notPlaced.reasons.length ? ` (${f.notPlaced.reasons.map(mdEscape).join('; ')})` : ''}.`
    : '';
  const unplaced = f.unplacedCalls?.length
    ? `\n\n**Calls not placed on a line**:\n\n${f.unplacedCalls.map((c) => `- → ${mdCode(c.function)} ${pct(c.pct)}${c.candidateLines.length ? ` — called on lines ${c.candidateLines.join(', ')}; the profile does not say which` : ' — call site not found in the source'}`).join('\n')}`
    : '';
  const inlined = f.inlinedInto?.length ? `\n\n**Ran inlined into**: ${f.inlinedInto.slice(0, 4).map(mdCode).join(', ')} (${formatMs(f.inlinedMs ?? 0)} of its self time).` : '';
  return `**${mdCode(f.function)}** — #${f.rank} by own cost\n\n` +
    `**Self time**: ${formatMs(f.selfMs)} (${pct(f.selfPct)}) · **Own**: ${formatMs(f.ownMs)} (${pct(f.ownPct)}) · **Total**: ${formatMs(f.totalMs)} (${pct(f.totalPct)})` +
    `${parts}${notPlaced}${unplaced}${inlined}${v8Markdown ? `\n\n${v8Markdown}` : ''}${threadsLine(f.threads, allThreads)}${callerList(f.callers, base)}\n\n_Profile: ${mdEscape(profileName)}_`;
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
  if (v.ranInlinedIn) {
    const ownCopy = v.ownTier ? ` (${mdEscape(v.ownTier)} at the end of the run)` : '';
    // Rounded down: a function with frames of its own never reads as 100% inlined.
    const own = v.ranInlinedShare !== undefined ? `${Math.floor(v.ranInlinedShare * 1000) / 10}% of its time ran there, the rest in its own copy${ownCopy}`
      : v.ownTier ? `every sample of it ran there, none in its own copy${ownCopy}` : 'it had no code of its own at the end of the run';
    const code = v.ranInlinedOsr ? `${mdEscape(v.tier)} code compiled on the stack (OSR: its loop was optimized while it ran; the function itself stayed in a lower tier)` : `${mdEscape(v.tier)} code`;
    parts.push(`**Ran inlined**: V8 inlined it into ${mdCode(v.ranInlinedIn)}, whose ${code} ran it; ${own}.`);
  }
  if (v.tierUnknown) parts.push(`**Why the tier is unknown**: ${mdEscape(v.tierUnknown.reason)}`);
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
