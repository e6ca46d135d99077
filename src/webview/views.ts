/** Box lists for each view, computed for the current zoom; only boxes of at least one pixel. */
import type { FlameTimeline } from '../shared/flame/payload';
import { timelineSpans } from '../shared/flame/timeline';
import type { FrameTree } from '../shared/flame/tree';
import { BoxBuilder, type Boxes } from './renderer';

/**
 * The aggregated flamegraph zoomed on `zoom`: its ancestors span the full width (rows above/below),
 * its subtree fills the width. Subtrees narrower than a pixel are skipped whole.
 */
export function flamegraphBoxes(tree: FrameTree, zoom: number, widthPx: number): { boxes: Boxes; t0: number; t1: number } {
  const t0 = tree.startUs[zoom];
  const t1 = t0 + tree.totalUs[zoom];
  const b = new BoxBuilder();
  for (let a = tree.parent[zoom]; a >= 0; a = tree.parent[a]) b.push(a, tree.depth[a], t0, t1);
  const minUs = (t1 - t0) / Math.max(1, widthPx);
  const end = tree.end[zoom];
  for (let i = zoom; i < end; ) {
    if (tree.totalUs[i] < minUs) {
      i = tree.end[i];
      continue;
    }
    b.push(i, tree.depth[i], tree.startUs[i], tree.startUs[i] + tree.totalUs[i]);
    i++;
  }
  return { boxes: b.build(), t0, t1 };
}

/** The flame chart's window [t0, t1): spans sampled per pixel column; row = depth - 1. */
export function flamechartBoxes(timeline: FlameTimeline, tree: FrameTree, mapTo: Int32Array | null, t0: number, t1: number, widthPx: number): Boxes {
  const spans = timelineSpans(timeline, tree, mapTo, t0, t1, Math.max(1, Math.round(widthPx)));
  // The spans are already boxes (tens of thousands on a zoomed-out chart of a large profile, redrawn on
  // every wheel step): only the row differs, depth − 1.
  const row = new Int32Array(spans.count);
  for (let s = 0; s < spans.count; s++) row[s] = spans.depth[s] - 1;
  return { count: spans.count, frame: spans.frame, row, x0: spans.startUs, x1: spans.endUs, rows: spans.count ? spans.maxDepth : 0 };
}
