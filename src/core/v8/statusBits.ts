/**
 * Decoding `%GetOptimizationStatus` (v8-signals §2.5). The bit layout is V8's `OptimizationStatus`
 * enum in runtime.h; it was the same on V8 11.3, 12.4 and 13.6 (Node 20, 22, 24), but a later V8 drops
 * `kAlwaysOptimize` (bit 2), which moves every higher bit down by one. So the layout is not assumed:
 * the collector calibrates it on two probe functions of known state (one forced to TurboFan, one run
 * once in the interpreter) and picks the layout that explains both, or none.
 */
import type { V8Tier } from './types';

export interface StatusLayout {
  name: string;
  optimized: number;
  maglevved: number;
  turbofanned: number;
  interpreted: number;
  baseline: number;
  isLazy: number;
}

const bit = (n: number) => 2 ** n;

/** V8 11.3 – 13.6 (Node 20, 22, 24). */
const WITH_ALWAYS_OPTIMIZE: StatusLayout = { name: 'v8-11.3..13.6', optimized: bit(4), maglevved: bit(5), turbofanned: bit(6), interpreted: bit(7), baseline: bit(15), isLazy: bit(18) };
/** Later V8: kAlwaysOptimize removed, bits from 3 up shifted down by one. */
const WITHOUT_ALWAYS_OPTIMIZE: StatusLayout = { name: 'v8-no-always-optimize', optimized: bit(3), maglevved: bit(4), turbofanned: bit(5), interpreted: bit(6), baseline: bit(14), isLazy: bit(17) };

const LAYOUTS = [WITH_ALWAYS_OPTIMIZE, WITHOUT_ALWAYS_OPTIMIZE];

const has = (status: number, mask: number) => Math.floor(status / mask) % 2 === 1;

/**
 * The layout under which `interpretedProbe` (a function run once) reads as interpreted and nothing
 * else — the interpreted bit alone tells the layouts apart (bit 7 vs bit 6) — and under which
 * `hotProbe`, if optimized at all, is optimized by a tier we know. Undefined when none fits (the tiers
 * are then 'unknown').
 */
export function calibrateLayout(hotProbe: number, interpretedProbe: number): StatusLayout | undefined {
  return LAYOUTS.find((l) =>
    has(interpretedProbe, l.interpreted) && !has(interpretedProbe, l.optimized) && !has(interpretedProbe, l.baseline) &&
    (!has(hotProbe, l.optimized) || has(hotProbe, l.turbofanned) || has(hotProbe, l.maglevved)));
}

/** Bit 1 (kNeverOptimize, the same in every layout): this process cannot optimize anything. */
export function optimizerDisabled(status: number): boolean {
  return has(status, 2);
}

/** The tier a function's current code is in. Optimized code wins over the baseline code it keeps. */
export function tierFromStatus(status: number, layout: StatusLayout | undefined): V8Tier {
  if (!layout || !has(status, 1)) return 'unknown'; // bit 0: IsFunction
  if (has(status, layout.turbofanned)) return 'TurboFan';
  if (has(status, layout.maglevved)) return 'Maglev';
  if (has(status, layout.baseline)) return 'Sparkplug';
  if (has(status, layout.interpreted)) return 'Ignition';
  return 'unknown'; // lazy (never compiled) or a state we do not know
}

const RANK: Record<V8Tier, number> = { unknown: 0, Ignition: 1, Sparkplug: 2, Maglev: 3, TurboFan: 4 };

/** The more optimized of two tiers (closures of one function literal may be in different states). */
export function higherTier(a: V8Tier | undefined, b: V8Tier): V8Tier {
  return a === undefined || RANK[b] > RANK[a] ? b : a;
}

export function isOptimizedTier(tier: V8Tier | undefined): boolean {
  return tier === 'TurboFan' || tier === 'Maglev';
}

/** Flamegraph tier codes (FunctionTable.extras.tier): 0 unknown, 1 Ignition, 2 Sparkplug, 3 Maglev, 4 TurboFan. */
export function tierCode(tier: V8Tier | undefined): number {
  return tier ? RANK[tier] : 0;
}
