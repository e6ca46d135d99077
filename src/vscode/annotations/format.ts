/** Texts of CodeLens, after-line labels and hovers (no vscode import; unit-tested in plain Node). */
import type { FunctionAnnotation, LineAnnotation, CallerShare } from '../../core/annotate';
import { mdCode, mdEscape } from '../status/render';

export function formatMs(ms: number): string {
  if (ms >= 100) return `${Math.round(ms).toLocaleString('en-US')} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

const pct = (p: number): string => `${p.toFixed(1)}%`;

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
  return `**Self time**: ${formatMs(l.selfMs)} (${pct(l.selfPct)} of the profile), ≈ ${l.samples.toLocaleString('en-US')} samples` +
    `\n\n**Function**: ${mdCode(l.function)}${inlined}${callerList(l.callers, base)}\n\n_Profile: ${mdEscape(profileName)}_`;
}

/** Hover Markdown for a hot function's declaration line. */
export function functionHover(f: FunctionAnnotation, profileName: string, base: (file: string) => string, v8Markdown?: string): string {
  return `**${mdCode(f.function)}** — #${f.rank} by self time\n\n` +
    `**Self time**: ${formatMs(f.selfMs)} (${pct(f.selfPct)}) · **Total**: ${formatMs(f.totalMs)} (${pct(f.totalPct)})` +
    `${v8Markdown ? `\n\n${v8Markdown}` : ''}${callerList(f.callers, base)}\n\n_Profile: ${mdEscape(profileName)}_`;
}
