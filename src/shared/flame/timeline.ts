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
 * Spans of the window [t0, t1) sampled at `columns` columns. `mapTo` maps a timeline frame to the frame
 * drawn (after filters), or is null for identity. Depth 0 (the root) is left out.
 */
export function timelineSpans(timeline: FlameTimeline, tree: StackSource, mapTo: Int32Array | null, t0: number, t1: number, columns: number): Spans {
  const cap = 1024;
  let frame = new Int32Array(cap);
  let depth = new Int32Array(cap);
  let startUs = new Float64Array(cap);
  let endUs = new Float64Array(cap);
  let count = 0;
  let maxDepth = 0;
  const push = (f: number, d: number, s: number, e: number) => {
    if (count === frame.length) {
      const grow = <T extends Int32Array | Float64Array>(a: T): T => {
        const b = new (a.constructor as { new (n: number): T })(a.length * 2);
        b.set(a);
        return b;
      };
      frame = grow(frame);
      depth = grow(depth);
      startUs = grow(startUs);
      endUs = grow(endUs);
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
  const dt = (t1 - t0) / Math.max(1, columns);
  for (let c = 0; c <= columns; c++) {
    const colStart = t0 + c * dt;
    let len = 0;
    if (c < columns) {
      const r = runAt(timeline, colStart + dt / 2);
      if (r >= 0) {
        let f = timeline.frame[r];
        if (mapTo) f = mapTo[f];
        len = tree.depth[f];
        for (let g = f; tree.depth[g] > 0; g = tree.parent[g]) stack[tree.depth[g]] = g;
      }
    }
    // Find the first depth where the stack differs from the open spans; close from there, open anew.
    let d = 1;
    while (d <= openLen && d <= len && open[d] === stack[d]) d++;
    for (let k = openLen; k >= d; k--) push(open[k], k, openStart[k], colStart);
    for (let k = d; k <= len; k++) {
      open[k] = stack[k];
      openStart[k] = colStart;
    }
    openLen = len;
  }
  return { count, frame, depth, startUs, endUs, maxDepth };
}
