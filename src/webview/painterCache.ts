/**
 * Each pane's painter, kept between draws while the mode, data, tree, theme and measure stay the same,
 * with each frame's bucket worked out once. Why: a wheel step redraws the flame chart's ~30,000 boxes,
 * and the heat bucket (a set lookup, a square root) per box was a fifth of the draw on the bench's 240 MB
 * profile; a painter depends on nothing else. DOM-free (plain Node tests import it).
 */
export interface BucketPainter {
  fills: string[];
  texts: string[];
  bucketOf(frame: number): number;
}

export interface PainterInputs {
  data: unknown;
  tree: { count: number };
  theme: unknown;
  measure: unknown;
}

export type PainterCache = Map<string, { mode: unknown; ctx: PainterInputs; painter: BucketPainter }>;

export function cachedPainter<C extends PainterInputs>(cache: PainterCache, slot: string, mode: { painter(ctx: C): BucketPainter }, ctx: C): BucketPainter {
  const hit = cache.get(slot);
  if (hit && hit.mode === mode && hit.ctx.data === ctx.data && hit.ctx.tree === ctx.tree && hit.ctx.theme === ctx.theme && hit.ctx.measure === ctx.measure) return hit.painter;
  const inner = mode.painter(ctx);
  const buckets = new Int16Array(ctx.tree.count).fill(-1);
  const painter: BucketPainter = {
    fills: inner.fills,
    texts: inner.texts,
    bucketOf(frame) {
      let b = buckets[frame];
      if (b < 0) b = buckets[frame] = inner.bucketOf(frame);
      return b;
    },
  };
  cache.set(slot, { mode, ctx, painter });
  return painter;
}
