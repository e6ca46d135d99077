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

/**
 * `functions.extras.tierUnknown`: why a function's tier is unknown (core/v8's TierUnknownCause), 0 when
 * not known or not applicable. Append, never reorder.
 */
export const TIER_UNKNOWN_CAUSES = ['', 'gone', 'no-code', 'not-read', 'layout'] as const;
const TIER_UNKNOWN_TEXT: Readonly<Record<string, string>> = {
  gone: 'no copy of it existed at the end of the run (a callback or code created per request)',
  'no-code': 'V8 held no compiled code for it at the end of the run',
  'not-read': 'V8 could not be asked at the end of the run',
  layout: 'this V8\'s status bits are not known to Hotpath',
};

/** The tooltip's tier text: `Unknown / not JS — the function no longer existed …` when the reason is known. */
export function tierTooltipText(code: number, unknownCause: number | undefined): string {
  const name = tierName(code);
  const why = name === 'unknown' && unknownCause ? TIER_UNKNOWN_TEXT[TIER_UNKNOWN_CAUSES[unknownCause] ?? ''] : undefined;
  return why ? `Tier unknown: ${why}` : TIER_LABELS[name];
}

/** The tooltip's text for a function with a known tier; `ranInlined` from `functions.extras.ranInlined`. */
export function knownTierTooltipText(code: number, ranInlined: number | undefined): string {
  return `Tier: ${TIER_LABELS[tierName(code)]}${ranInlined ? ' — ran inlined into optimized code (no code of its own)' : ''}`;
}

/** The tier of a code; unknown for anything out of range. */
export function tierName(code: number): TierName {
  return TIERS[code] ?? 'unknown';
}

/** Deopt count as people read it: the payload clamps at 255. */
export function deoptText(count: number): string {
  if (count <= 0) return 'no deopts';
  return `${count >= 255 ? '255+' : count} deopt${count === 1 ? '' : 's'}`;
}
