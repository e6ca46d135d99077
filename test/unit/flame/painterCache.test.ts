/**
 * The webview keeps each pane's painter between draws (a wheel step redraws ~30,000 boxes of the flame
 * chart): a frame's bucket is worked out once, and any change to what a painter depends on (mode, data,
 * tree, theme, measure) makes a new one.
 */
import * as assert from 'node:assert/strict';
import { type BucketPainter, cachedPainter, type PainterCache, type PainterInputs } from '../../../src/webview/painterCache';

type PaintContext = PainterInputs & { measure: 'self' | 'callers' };
type ColorMode = { id: string; painter(ctx: PaintContext): BucketPainter };

function countingMode(id: string, calls: number[]): ColorMode {
  return {
    id,
    painter: (ctx) => ({ fills: ['a', 'b', 'c'], texts: ['x', 'x', 'x'], bucketOf: (frame) => { calls.push(frame); return (frame * 7 + ctx.tree.count) % 3; } }),
  };
}

describe('painter cache (webview)', () => {
  const tree = { count: 5 };
  const ctx: PaintContext = { data: {}, tree, theme: {}, measure: 'self' };

  it('keeps the painter while its inputs are the same, and asks the mode for each frame\'s bucket once', () => {
    const calls: number[] = [];
    const mode = countingMode('heat', calls);
    const cache: PainterCache = new Map();
    const a = cachedPainter(cache, 'main', mode, ctx);
    const buckets = [0, 1, 2, 3, 4].map((f) => a.bucketOf(f));
    assert.deepEqual(buckets, [0, 1, 2, 3, 4].map((f) => (f * 7 + 5) % 3));
    const b = cachedPainter(cache, 'main', mode, { ...ctx });
    assert.equal(b, a, 'same mode, data, tree, theme and measure: the same painter');
    assert.deepEqual([4, 3, 2, 1, 0].map((f) => b.bucketOf(f)), [4, 3, 2, 1, 0].map((f) => (f * 7 + 5) % 3));
    assert.deepEqual(calls, [0, 1, 2, 3, 4], 'each frame asked once');
  });

  it('makes a new painter when the theme, tree, measure or mode changes, and per pane', () => {
    const calls: number[] = [];
    const mode = countingMode('heat', calls);
    const cache: PainterCache = new Map();
    const a = cachedPainter(cache, 'main', mode, ctx);
    a.bucketOf(1);
    for (const other of [{ ...ctx, theme: {} }, { ...ctx, tree: { count: 6 } }, { ...ctx, measure: 'callers' as const }]) {
      const p = cachedPainter(cache, 'main', mode, other);
      assert.notEqual(p, a);
      cachedPainter(cache, 'main', mode, ctx); // back to the first inputs for the next case
    }
    assert.notEqual(cachedPainter(cache, 'main', countingMode('category', calls), ctx), a);
    assert.notEqual(cachedPainter(cache, 'callers', mode, ctx), cachedPainter(cache, 'main', mode, ctx));
    const c = cachedPainter(cache, 'main', mode, { ...ctx, tree: { count: 6 } });
    assert.equal(c.bucketOf(1), (7 + 6) % 3, 'the new tree\'s bucket, not the cached one of the old tree');
  });
});
