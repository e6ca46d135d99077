/**
 * Colour modes. Each turns a frame into a palette bucket; the renderer batches boxes by bucket, so a
 * mode is a small palette plus a cheap per-frame function. Modes register themselves here (heat,
 * category, diff below; the V8 tier mode in tierMode.ts, available when the payload has
 * `functions.extras.tier`).
 *
 * What a frame's time means depends on the tree: in the flamegraph, the flame chart and the sandwich's
 * callees, a frame's self time is time on top of the stack. In the sandwich's callers tree a frame is a
 * call path into the selected function and its total is that function's time through the path (its
 * "self" is only bookkeeping), so modes colour callers by that share (`measure: 'callers'`).
 */
import { CATEGORIES, CATEGORY_LABELS, CategoryCode } from '../shared/flame/categories';
import type { FrameTree } from '../shared/flame/tree';
import type { FlameData } from './data';
import { isDark, type Theme } from './theme';

/** How to read a frame's time: 'self' (time on top of the stack) or 'callers' (see above). */
export type Measure = 'self' | 'callers';

export interface PaintContext {
  data: FlameData;
  tree: FrameTree;
  theme: Theme;
  /** Default 'self'. */
  measure?: Measure;
}

/** What the legend describes: the view's trees; `sandwich` names the selected function in that view. */
export interface LegendContext {
  data: FlameData;
  tree: FrameTree;
  theme: Theme;
  sandwich?: { name: string };
}

export interface Painter {
  /** Fill per bucket. */
  fills: string[];
  /** Label colour per bucket (readable on that fill). */
  texts: string[];
  bucketOf(frame: number): number;
}

/**
 * One legend entry: a swatch and its label, never a swatch without one. `marker`: drawn as the deopt
 * marker; `scale`: a continuous scale (a gradient from `colors[0]` to the last) read from `from` to `to`.
 */
export interface LegendEntry {
  color: string;
  label: string;
  marker?: boolean;
  scale?: { colors: string[]; from: string; to: string };
}

export interface Legend {
  title: string;
  entries: LegendEntry[];
  /** What width and colour mean: shown whole, on its own line under the entries. */
  note?: string;
}

export interface ColorMode {
  id: string;
  label: string;
  available(data: FlameData): boolean;
  painter(ctx: PaintContext): Painter;
  legend(ctx: LegendContext): Legend;
}

/** Per-tree sums of the before-profile's time over each subtree (the callers tree's before totals). */
const beforeTotalsCache = new WeakMap<FrameTree, Float64Array>();
function beforeTotals(tree: FrameTree): Float64Array {
  let totals = beforeTotalsCache.get(tree);
  if (!totals) {
    totals = Float64Array.from(tree.extraUs ?? new Float64Array(tree.count));
    for (let i = tree.count - 1; i > 0; i--) totals[tree.parent[i]] += totals[i];
    beforeTotalsCache.set(tree, totals);
  }
  return totals;
}

/** A frame's time under `measure`, µs: self time, or for callers the selected function's time through it. */
export function frameUs(tree: FrameTree, frame: number, measure: Measure = 'self'): number {
  return measure === 'callers' ? tree.totalUs[frame] : tree.selfUs[frame];
}

const modes = new Map<string, ColorMode>();

export function registerColorMode(mode: ColorMode): void {
  modes.set(mode.id, mode);
}

export function availableModes(data: FlameData): ColorMode[] {
  return [...modes.values()].filter((m) => m.available(data));
}

export function colorMode(id: string, data: FlameData): ColorMode {
  const m = modes.get(id);
  return m && m.available(data) ? m : availableModes(data)[0];
}

const hsl = (h: number, s: number, l: number) => `hsl(${h.toFixed(0)} ${s.toFixed(0)}% ${l.toFixed(0)}%)`;
const textOn = (theme: Theme) => (isDark(theme) ? '#f3f3f3' : '#1b1b1b');
const neutral = (theme: Theme) => (isDark(theme) ? hsl(0, 0, 30) : hsl(0, 0, 86));
/** Categories never "hot": pseudo-frames whose time is not code running. */
const QUIET = new Set<number>([CategoryCode.idle, CategoryCode.program, CategoryCode.root]);

// ── heat: self time, hotter = more time on top of the stack ──────────────────────────────────────────
const HEAT_LEVELS = 16;
function heatFill(level: number, theme: Theme): string {
  const l = level / (HEAT_LEVELS - 1);
  return isDark(theme) ? hsl(55 - 55 * l, 55 + 35 * l, 27 + 17 * l) : hsl(55 - 55 * l, 65 + 30 * l, 85 - 32 * l);
}
/** The largest self time of a frame that can be hot, per tree: every zoom repaints, the tree stays. */
const heatMaxCache = new WeakMap<FrameTree, number>();
function heatMax(tree: FrameTree, cat: ArrayLike<number>): number {
  let max = heatMaxCache.get(tree);
  if (max === undefined) {
    max = 0;
    for (let i = 0; i < tree.count; i++) if (!QUIET.has(cat[tree.func[i]]) && tree.selfUs[i] > max) max = tree.selfUs[i];
    heatMaxCache.set(tree, max);
  }
  return max;
}
registerColorMode({
  id: 'heat',
  label: 'Heat (self time)',
  available: () => true,
  painter({ data, tree, theme, measure }) {
    const cat = data.payload.functions.category;
    if (measure === 'callers') {
      // Share of the selected function's time (the root's total) that comes through this caller: linear,
      // so the legend's 0% … 100% reads directly.
      const fills = [neutral(theme)];
      for (let k = 0; k < HEAT_LEVELS; k++) fills.push(heatFill(k, theme));
      const whole = tree.totalUs[0];
      return {
        fills,
        texts: fills.map(() => textOn(theme)),
        bucketOf: (frame) => (whole > 0 ? 1 + Math.min(HEAT_LEVELS - 1, Math.round((tree.totalUs[frame] / whole) * (HEAT_LEVELS - 1))) : 0),
      };
    }
    const max = heatMax(tree, cat);
    const fills = [neutral(theme)];
    for (let k = 0; k < HEAT_LEVELS; k++) fills.push(heatFill(k, theme));
    return {
      fills,
      texts: fills.map(() => textOn(theme)),
      bucketOf(frame) {
        if (QUIET.has(cat[tree.func[frame]]) || max === 0) return 0;
        return 1 + Math.min(HEAT_LEVELS - 1, Math.round(Math.sqrt(tree.selfUs[frame] / max) * (HEAT_LEVELS - 1)));
      },
    };
  },
  legend({ data, theme, sandwich: s }) {
    const scale = { colors: Array.from({ length: HEAT_LEVELS }, (_, k) => heatFill(k, theme)) };
    if (s) {
      return {
        title: 'Heat',
        entries: [{ color: heatFill(HEAT_LEVELS - 1, theme), label: 'share', scale: { ...scale, from: '0%', to: '100%' } }],
        note: `Callers (top): colour = share of ${s.name}'s time that comes through that caller. Callees (bottom): self time within ${s.name}'s calls. Width: time.`,
      };
    }
    // An allocation profile is in bytes: say so, or the legend describes a CPU profile that is not on screen.
    const bytes = data.isBytes;
    return {
      title: 'Heat',
      entries: [
        { color: heatFill(HEAT_LEVELS - 1, theme), label: bytes ? 'bytes allocated' : 'self time', scale: { ...scale, from: 'little', to: bytes ? 'allocates the most itself' : 'most self time' } },
        { color: neutral(theme), label: bytes ? 'root' : 'idle / program / root' },
      ],
      note: bytes ? 'Width: bytes allocated by the frame and its callees. Colour: the bytes the frame allocated itself (hotter = more).' : 'Width: total time. Colour: the frame\'s self time, the time on top of the stack (hotter = more).',
    };
  },
});

// ── category: where the code comes from ────────────────────────────────────────────────────────────
const CATEGORY_HUES: Record<string, [number, number]> = {
  user: [207, 70], dependency: [275, 45], node: [135, 40], native: [40, 80], gc: [0, 70], idle: [0, 0], program: [0, 0], root: [0, 0],
};
function categoryFill(category: string, theme: Theme): string {
  const [h, s] = CATEGORY_HUES[category] ?? [0, 0];
  const light = category === 'program' ? -6 : 0;
  return isDark(theme) ? hsl(h, s, 34 + light) : hsl(h, s, 77 + light);
}
registerColorMode({
  id: 'category',
  label: 'Category',
  available: () => true,
  painter({ data, tree, theme }) {
    const cat = data.payload.functions.category;
    const fills = CATEGORIES.map((c) => categoryFill(c, theme));
    return { fills, texts: fills.map(() => textOn(theme)), bucketOf: (frame) => cat[tree.func[frame]] };
  },
  legend({ theme }) {
    return {
      title: 'Category',
      entries: CATEGORIES.filter((c) => c !== 'root').map((c) => ({ color: categoryFill(c, theme), label: CATEGORY_LABELS[c] })),
    };
  },
});

// ── diff: change of the frame's self-time share between two profiles ─────────────────────────────
const DIFF_LEVELS = 8;
function diffFill(direction: 1 | -1, level: number, theme: Theme): string {
  const l = level / DIFF_LEVELS;
  const hue = direction > 0 ? 0 : 215;
  return isDark(theme) ? hsl(hue, 70, 22 + 28 * l) : hsl(hue, 80, 93 - 40 * l);
}
/**
 * A frame's share of each profile's duration, before and after, and the change. Under 'self' the
 * self-time share; under 'callers' the share of time spent in the selected function through that path.
 */
export function diffShares(data: FlameData, tree: FrameTree, frame: number, measure: Measure = 'self'): { after: number; before: number; delta: number } {
  const after = data.durationUs > 0 ? frameUs(tree, frame, measure) / data.durationUs : 0;
  const beforeTotal = data.payload.diff?.before.durationUs ?? 0;
  const beforeUs = !tree.extraUs ? 0 : measure === 'callers' ? beforeTotals(tree)[frame] : tree.extraUs[frame];
  const before = beforeTotal > 0 ? beforeUs / beforeTotal : 0;
  return { after, before, delta: after - before };
}
registerColorMode({
  id: 'diff',
  label: 'Difference',
  available: (data) => data.isDiff,
  painter({ data, tree, theme, measure }) {
    let max = 0;
    const delta = new Float64Array(tree.count);
    // Frame 0 too: in the sandwich it is the selected function (the profile's root has no time).
    for (let i = 0; i < tree.count; i++) {
      delta[i] = diffShares(data, tree, i, measure).delta;
      if (Math.abs(delta[i]) > max) max = Math.abs(delta[i]);
    }
    const fills = [neutral(theme)];
    for (let k = 1; k <= DIFF_LEVELS; k++) fills.push(diffFill(1, k, theme));
    for (let k = 1; k <= DIFF_LEVELS; k++) fills.push(diffFill(-1, k, theme));
    return {
      fills,
      texts: fills.map(() => textOn(theme)),
      bucketOf(frame) {
        const d = delta[frame];
        // Below 0.01 percentage points (or 2% of the largest change) is noise, not a change.
        if (max === 0 || Math.abs(d) < Math.max(1e-4, 0.02 * max)) return 0;
        const level = Math.max(1, Math.min(DIFF_LEVELS, Math.ceil(Math.sqrt(Math.abs(d) / max) * DIFF_LEVELS)));
        return d > 0 ? level : DIFF_LEVELS + level;
      },
    };
  },
  legend({ data, theme, sandwich: s }) {
    const before = data.payload.diff!.before;
    const ms = (us: number) => `${(us / 1000).toFixed(us < 10_000 ? 1 : 0)} ms`;
    const sandwichNote = s ? ` Callers: change in the share of time in ${s.name} through each caller.` : '';
    return {
      title: 'Difference',
      entries: [
        { color: diffFill(1, DIFF_LEVELS, theme), label: 'more self time than before (slower)' },
        { color: diffFill(-1, DIFF_LEVELS, theme), label: 'less self time (faster)' },
        { color: neutral(theme), label: 'no change' },
      ],
      note: `Widths: after (${data.payload.diff!.sides?.after.label ?? data.payload.meta.title}, ${ms(data.durationUs)}). Colour: change in self-time share vs before (${data.payload.diff!.sides?.before.label ?? before.title}, ${ms(before.durationUs)}).${sandwichNote}`,
    };
  },
});
