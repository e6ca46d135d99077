/**
 * Colour modes. Each turns a frame into a palette bucket; the renderer batches boxes by bucket, so a
 * mode is a small palette plus a cheap per-frame function. Modes register themselves here; the tier
 * colouring of the V8-signals issue plugs in with registerColorMode (it reads
 * `payload.functions.extras.tier`, a per-function Uint8Array, and returns `available: false` without it).
 */
import { CATEGORIES, CATEGORY_LABELS, CategoryCode } from '../shared/flame/categories';
import type { FrameTree } from '../shared/flame/tree';
import type { FlameData } from './data';
import { isDark, type Theme } from './theme';

export interface PaintContext {
  data: FlameData;
  tree: FrameTree;
  theme: Theme;
}

export interface Painter {
  /** Fill per bucket. */
  fills: string[];
  /** Label colour per bucket (readable on that fill). */
  texts: string[];
  bucketOf(frame: number): number;
}

export interface Legend {
  title: string;
  entries: { color: string; label: string }[];
  note?: string;
}

export interface ColorMode {
  id: string;
  label: string;
  available(data: FlameData): boolean;
  painter(ctx: PaintContext): Painter;
  legend(ctx: PaintContext): Legend;
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
registerColorMode({
  id: 'heat',
  label: 'Heat (self time)',
  available: () => true,
  painter({ data, tree, theme }) {
    const cat = data.payload.functions.category;
    let max = 0;
    for (let i = 0; i < tree.count; i++) if (!QUIET.has(cat[tree.func[i]]) && tree.selfUs[i] > max) max = tree.selfUs[i];
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
  legend({ theme }) {
    return {
      title: 'Heat',
      entries: [
        { color: heatFill(0, theme), label: 'little self time' },
        { color: heatFill(HEAT_LEVELS / 2, theme), label: '' },
        { color: heatFill(HEAT_LEVELS - 1, theme), label: 'most time on top of the stack' },
        { color: neutral(theme), label: 'idle / program / root' },
      ],
      note: 'Width: total time. Colour: the frame\'s self time (hotter = more).',
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
export function diffShares(data: FlameData, tree: FrameTree, frame: number): { after: number; before: number; delta: number } {
  const after = data.durationUs > 0 ? tree.selfUs[frame] / data.durationUs : 0;
  const beforeTotal = data.payload.diff?.before.durationUs ?? 0;
  const before = tree.extraUs && beforeTotal > 0 ? tree.extraUs[frame] / beforeTotal : 0;
  return { after, before, delta: after - before };
}
registerColorMode({
  id: 'diff',
  label: 'Difference',
  available: (data) => data.isDiff,
  painter({ data, tree, theme }) {
    let max = 0;
    const delta = new Float64Array(tree.count);
    for (let i = 1; i < tree.count; i++) {
      delta[i] = diffShares(data, tree, i).delta;
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
  legend({ data, theme }) {
    const before = data.payload.diff!.before;
    const ms = (us: number) => `${(us / 1000).toFixed(us < 10_000 ? 1 : 0)} ms`;
    return {
      title: 'Difference',
      entries: [
        { color: diffFill(1, DIFF_LEVELS, theme), label: 'more self time than before (slower)' },
        { color: diffFill(-1, DIFF_LEVELS, theme), label: 'less self time (faster)' },
        { color: neutral(theme), label: 'no change' },
      ],
      note: `Widths: after (${data.payload.meta.title}, ${ms(data.durationUs)}). Colour: change in self-time share vs before (${before.title}, ${ms(before.durationUs)}).`,
    };
  },
});
