/**
 * Flame-chart spans for one view window, computed at draw time from the run list: each pixel column
 * takes the stack of the sample at its centre, and a span continues while the same frame stays at the
 * same depth. The cost is columns × depth, whatever the profile's size; frames narrower than a column
 * are not drawn (they would be under a pixel).
 */
import type { FlameTimeline } from './payload';

export interface Spans {
  count: number;
  frame: Int32Array;
  depth: Int32Array;
  /** Span edges in µs from the timeline's start. */
  startUs: Float64Array;
  endUs: Float64Array;
  /** Deepest depth drawn (0 when nothing). */
  maxDepth: number;
}

export interface StackSource {
  parent: Int32Array;
  depth: Int32Array;
}

/** Index of the run covering time t (µs), or -1 outside the timeline. */
export function runAt(timeline: FlameTimeline, t: number): number {
  const starts = timeline.startUs;
  const n = timeline.frame.length;
  if (n === 0 || t < starts[0] || t >= timeline.endUs) return -1;
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid] <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Index of the run covering time t, searching forward from run `from` (which starts at or before t):
 * galloping, then binary search — a step or two when columns are narrower than runs, log(n) otherwise.
 * -1 at or past the timeline's end.
 */
function runFrom(starts: Float64Array, runs: number, from: number, t: number, endUs: number): number {
  if (t >= endUs) return -1;
  let lo = from;
  let step = 1;
  let hi = from + step;
  while (hi < runs && starts[hi] <= t) {
    lo = hi;
    step *= 2;
    hi = from + step;
  }
  hi = Math.min(hi, runs) - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid] <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

interface SpanArrays {
  frame: Int32Array;
  depth: Int32Array;
  startUs: Float64Array;
  endUs: Float64Array;
}

let scratch: SpanArrays = { frame: new Int32Array(1024), depth: new Int32Array(1024), startUs: new Float64Array(1024), endUs: new Float64Array(1024) };

function grown(a: SpanArrays): SpanArrays {
  const n = a.frame.length * 2;
  const b = { frame: new Int32Array(n), depth: new Int32Array(n), startUs: new Float64Array(n), endUs: new Float64Array(n) };
  b.frame.set(a.frame);
  b.depth.set(a.depth);
  b.startUs.set(a.startUs);
  b.endUs.set(a.endUs);
  return b;
}

/**
 * Spans of the window [t0, t1) sampled at `columns` columns. `mapTo` maps a timeline frame to the frame
 * drawn (after filters), or is null for identity. Depth 0 (the root) is left out.
 */
export function timelineSpans(timeline: FlameTimeline, tree: StackSource, mapTo: Int32Array | null, t0: number, t1: number, columns: number): Spans {
  // Spans are written into scratch arrays kept between calls and copied out at their final size: a
  // zoomed-out chart of a large profile has ~30,000, and growing fresh arrays to that size on every
  // wheel step (allocating and zeroing each time) cost more than finding the spans.
  let { frame, depth, startUs, endUs } = scratch;
  let count = 0;
  let maxDepth = 0;
  const push = (f: number, d: number, s: number, e: number) => {
    if (count === frame.length) {
      scratch = grown(scratch);
      ({ frame, depth, startUs, endUs } = scratch);
    }
    frame[count] = f;
    depth[count] = d;
    startUs[count] = s;
    endUs[count] = e;
    count++;
    if (d > maxDepth) maxDepth = d;
  };

  const open: number[] = []; // open[d] = frame at depth d (index 0 unused)
  const openStart: number[] = [];
  let openLen = 0; // open spans occupy depths 1..openLen
  const stack: number[] = [];
  const starts = timeline.startUs;
  const runs = timeline.frame.length;
  const dt = (t1 - t0) / Math.max(1, columns);
  let r = -1; // the run of the last column that had one: columns only move forward in time
  for (let c = 0; c <= columns; c++) {
    const colStart = t0 + c * dt;
    let len = 0;
    // The first depth where this column's stack differs from the open spans.
    let d = 1;
    if (c < columns) {
      const t = colStart + dt / 2;
      r = r >= 0 && t >= starts[r] ? runFrom(starts, runs, r, t, timeline.endUs) : runAt(timeline, t);
      if (r >= 0) {
        let f = timeline.frame[r];
        if (mapTo) f = mapTo[f];
        len = tree.depth[f];
        // Up from the sample's frame only to the deepest frame the open spans share with it: a frame at
        // depth k that is open at depth k has the same ancestors (the 30–40 levels a chart column of a
        // server profile has were walked for each of its ~1,600 columns on every redraw).
        let g = f;
        while (tree.depth[g] > 0 && !(tree.depth[g] <= openLen && open[tree.depth[g]] === g)) {
          stack[tree.depth[g]] = g;
          g = tree.parent[g];
        }
        d = tree.depth[g] + 1;
      }
    }
    for (let k = openLen; k >= d; k--) push(open[k], k, openStart[k], colStart);
    for (let k = d; k <= len; k++) {
      open[k] = stack[k];
      openStart[k] = colStart;
    }
    openLen = len;
  }
  return { count, frame: frame.slice(0, count), depth: depth.slice(0, count), startUs: startUs.slice(0, count), endUs: endUs.slice(0, count), maxDepth };
}
