/**
 * V8 signals for the flamegraph: per payload function, `extras.tier` (0 unknown, 1 Ignition,
 * 2 Sparkplug, 3 Maglev, 4 TurboFan) and `extras.deopts` (real deopts, OSR bookkeeping left out,
 * clamped to 255), `extras.tierUnknown` (why a tier is unknown, TIER_UNKNOWN_CAUSES) and `extras.ranInlined`
 * (1: the tier is that of the optimized code it was inlined into; it had none of its own), for the "colour by tier" mode and the deopt marker. The payload's function table
 * follows `model.functions` index for index, so the joined map's keys apply directly.
 */
import type { FlamePayload } from '../../shared/flame/payload';
import { TIER_UNKNOWN_CAUSES } from '../../shared/flame/tiers';
import { deoptCount } from './format';
import { tierCode } from './statusBits';
import type { V8FunctionSignals } from './types';

export function addV8FlameExtras(payload: FlamePayload, byFunction: ReadonlyMap<number, V8FunctionSignals>): FlamePayload {
  const n = payload.functions.count;
  const tier = new Uint8Array(n);
  const deopts = new Uint8Array(n);
  const tierUnknown = new Uint8Array(n);
  const ranInlined = new Uint8Array(n);
  for (const [f, s] of byFunction) {
    if (f < 0 || f >= n) continue;
    tier[f] = tierCode(s.tier);
    deopts[f] = Math.min(255, deoptCount(s.deopts));
    if (s.tierUnknown) tierUnknown[f] = Math.max(0, TIER_UNKNOWN_CAUSES.indexOf(s.tierUnknown.cause));
    if (s.ranInlinedIn) ranInlined[f] = 1;
  }
  // Inlined frames (core/flame/inlined.ts) ran in their parent frame's optimized code: its tier. Deopts
  // stay the callee's own (a deopt inside inlined code is reported at the callee's position).
  const of = payload.functions.inlinedOf;
  if (of) {
    const { parent, func } = payload.frames;
    for (let i = 1; i < func.length; i++) {
      const t = func[i];
      if (t >= n || of[t] < 0 || parent[i] < 0) continue;
      const into = func[parent[i]];
      tier[t] = tier[into];
      tierUnknown[t] = tierUnknown[into];
      deopts[t] = deopts[of[t]];
    }
  }
  payload.functions.extras = { ...(payload.functions.extras ?? {}), tier, deopts, tierUnknown, ranInlined };
  return payload;
}
