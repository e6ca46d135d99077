/**
 * One-line summaries of V8's view of a function, for the CodeLens (`12.3% self · TurboFan · 2 deopts
 * (wrong map)`), the CLI table and hovers' first line.
 */
import type { V8Deopt, V8FunctionSignals } from './types';

const SHORT: Record<string, string> = {
  disabled: 'optimization disabled',
  breakpoint: 'never compiled: breakpoint?',
  aborted: 'optimization aborted',
  'too-large': 'too large to optimize',
  deoptimized: 'deoptimized',
  'never-marked': 'never optimized',
};

/** Real deopts (OSR bookkeeping left out), counted with repeats. */
export function deoptCount(deopts: readonly V8Deopt[]): number {
  return deopts.reduce((n, d) => n + (d.osr ? 0 : d.count), 0);
}

/** The most frequent real deopt reason. */
export function topDeoptReason(deopts: readonly V8Deopt[]): string | undefined {
  const byReason = new Map<string, number>();
  for (const d of deopts) if (!d.osr) byReason.set(d.reason, (byReason.get(d.reason) ?? 0) + d.count);
  let best: string | undefined;
  for (const [reason, n] of byReason) if (best === undefined || n > byReason.get(best)!) best = reason;
  return best;
}

/** The tier, or `tier unknown (gone by the end)`: never an unexplained "unknown". */
export function tierText(signals: Pick<V8FunctionSignals, 'tier' | 'tierUnknown' | 'ranInlinedIn' | 'ranInlinedOsr'>): string {
  if (signals.ranInlinedIn) return `${signals.tier} (inlined into ${signals.ranInlinedIn.replace(/ \(.*\)$/, '')}${signals.ranInlinedOsr ? ', OSR' : ''})`;
  if (signals.tier !== 'unknown') return signals.tier;
  return signals.tierUnknown ? `tier unknown (${signals.tierUnknown.short})` : 'tier unknown';
}

/** `TurboFan · 2 deopts (wrong map)`, `Ignition (never optimized)`, `Sparkplug · inlined into loop`. */
export function formatV8Summary(signals: V8FunctionSignals): string {
  const tier = tierText(signals);
  const parts = [signals.notOptimized ? `${tier} (${SHORT[signals.notOptimized.cause ?? ''] ?? signals.notOptimized.reason})` : tier];
  const n = deoptCount(signals.deopts);
  if (n > 0) parts.push(`${n} deopt${n === 1 ? '' : 's'} (${topDeoptReason(signals.deopts)})`);
  if (signals.inlinedInto.length > 0 && signals.tier !== 'TurboFan' && signals.tier !== 'Maglev') {
    const first = signals.inlinedInto[0].replace(/ \(.*\)$/, '');
    parts.push(`inlined into ${first}${signals.inlinedInto.length > 1 ? ` +${signals.inlinedInto.length - 1}` : ''}`);
  }
  return parts.join(' · ');
}
