/**
 * V8 execution tiers as the flamegraph payload carries them: `functions.extras.tier`, one code per
 * function (0 unknown, 1 Ignition, 2 Sparkplug, 3 Maglev, 4 TurboFan — the codes of core/v8's
 * tierCode), and `functions.extras.deopts`, the function's deopt count clamped to 255. The order is
 * part of the payload format: append, never reorder.
 */
export const TIERS = ['unknown', 'Ignition', 'Sparkplug', 'Maglev', 'TurboFan'] as const;
export type TierName = (typeof TIERS)[number];

export const TIER_LABELS: Readonly<Record<TierName, string>> = {
  unknown: 'Unknown / not JS',
  Ignition: 'Ignition (interpreter)',
  Sparkplug: 'Sparkplug (baseline compiler)',
  Maglev: 'Maglev (mid-tier optimizer)',
  TurboFan: 'TurboFan (optimizing compiler)',
};

/** The tier of a code; unknown for anything out of range. */
export function tierName(code: number): TierName {
  return TIERS[code] ?? 'unknown';
}

/** Deopt count as people read it: the payload clamps at 255. */
export function deoptText(count: number): string {
  if (count <= 0) return 'no deopts';
  return `${count >= 255 ? '255+' : count} deopt${count === 1 ? '' : 's'}`;
}
