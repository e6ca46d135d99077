/**
 * "Colour by tier" (the V8-signals issue): each frame takes the colour of the tier V8 had its function
 * in at the end of the run — Ignition, Sparkplug, Maglev, TurboFan or unknown — from the payload's
 * `functions.extras.tier`. Available only when the payload carries that array. Colours are the theme's
 * --hp-tier-* variables (flame.css: colour-blind-safe, readable labels). The deopt marker that goes with
 * it is drawn in every mode (see App and the renderer), so it is not part of this palette.
 */
import { TIER_LABELS, TIERS } from '../shared/flame/tiers';
import { registerColorMode } from './colors';
import type { FlameData } from './data';

/** The payload's tier codes, or undefined when it has none (or a malformed array). */
export function tierCodes(data: FlameData): Uint8Array | undefined {
  const tier = data.payload.functions.extras?.tier;
  return tier instanceof Uint8Array && tier.length === data.payload.functions.count ? tier : undefined;
}

/** The payload's deopt counts, or undefined. */
export function deoptCounts(data: FlameData): Uint8Array | undefined {
  const deopts = data.payload.functions.extras?.deopts;
  return deopts instanceof Uint8Array && deopts.length === data.payload.functions.count ? deopts : undefined;
}

/** Whether any function of the payload deoptimized. */
export function hasDeopts(data: FlameData): boolean {
  const d = deoptCounts(data);
  return d !== undefined && d.some((n) => n > 0);
}

registerColorMode({
  id: 'tier',
  label: 'V8 tier',
  available: (data) => tierCodes(data) !== undefined,
  painter({ data, tree, theme }) {
    const tier = tierCodes(data)!;
    const last = TIERS.length - 1;
    return {
      fills: theme.tierFills.slice(0, TIERS.length),
      texts: theme.tierTexts.slice(0, TIERS.length),
      bucketOf: (frame) => {
        const t = tier[tree.func[frame]];
        return t <= last ? t : 0;
      },
    };
  },
  legend({ data, theme }) {
    const entries = TIERS.map((t, i) => ({ color: theme.tierFills[i], label: TIER_LABELS[t] }));
    // Ordered as people think of the pipeline: interpreter first, unknown last.
    entries.push(entries.shift()!);
    if (hasDeopts(data)) entries.push({ color: theme.deopt, label: 'deoptimized (count in the tooltip)', marker: true });
    return {
      title: 'V8 tier',
      entries,
      note: 'Colour: the tier V8 had the function in at the end of the run. Hot code in Ignition or Sparkplug never got optimized.',
    };
  },
});
