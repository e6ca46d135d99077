/**
 * One label per line, its share first, placed where it can be read (issue 14, item 5): after a line
 * that leaves room for it, above (a CodeLens row) a line too long for it; a deopt joins the line's label.
 */
import { strict as assert } from 'node:assert';
import { placeLabels, visualWidth } from '../../../src/vscode/annotations/lineLabels';
import type { DeoptAnnotation, LineAnnotation } from '../../../src/core/annotate';

const hot = (line: number, over: Partial<LineAnnotation> = {}): { annotation: LineAnnotation; line: number } => ({
  line,
  annotation: { file: '/a.js', line: line + 1, selfMs: 350, selfPct: 17.2, totalMs: 350, totalPct: 17.2, ownMs: 350, ownPct: 17.2, samples: 350, function: 'nearestStores', placement: 'own', calls: [], callers: [], ...over },
});
const deopt = (line: number, reason: string, count: number): { annotation: DeoptAnnotation; line: number } => ({
  line, annotation: { file: '/a.js', line: line + 1, column: 3, function: 'nearestStores', kind: 'deopt-eager', reason, count },
});

describe('hot-line labels: one per line, where it can be read', () => {
  const text = ['  if (!refresh) scheduleInventoryRefresh();', `  const ranked = stores.map((store) => ({ store, km: distanceKm(origin, { lat: store.location.lat, lng: store.location.lng }) })).filter((r) => r.store.open && r.km <= maxKm);`, '\t\treturn x;', '  y();'];
  const layout = { lineText: (l: number) => text[l], tabSize: 4, maxColumn: 100, above: true };

  it('a hot line and a deopt on it: one label, the line\'s share first, the deopt after it', () => {
    const placed = placeLabels([hot(0)], [deopt(0, 'wrong map', 3), deopt(0, 'not a Smi', 1)], layout);
    assert.deepEqual([...placed.values()].map((p) => [p.line, p.text, p.placement, p.hot]), [[0, '17.2% · 350 ms · deopt: wrong map ×3 +1 more', 'after', true]]);
  });

  it('a line too long for its label gets it above; a short one keeps it after', () => {
    const placed = placeLabels([hot(0), hot(1, { selfPct: 15.2, totalPct: 34.6, totalMs: 700, ownPct: 15.2 })], [deopt(1, 'wrong map', 1)], layout);
    assert.equal(placed.get(0)!.placement, 'after');
    assert.equal(placed.get(1)!.placement, 'above');
    assert.equal(placed.get(1)!.text, '34.6% total · 15.2% self · deopt: wrong map');
    // Without CodeLens (editor.codeLens off, or wrapped lines) it stays after the line.
    assert.equal(placeLabels([hot(1)], [], { ...layout, above: false }).get(1)!.placement, 'after');
    // A narrower setting moves more labels above.
    assert.equal(placeLabels([hot(0)], [], { ...layout, maxColumn: 50 }).get(0)!.placement, 'above');
  });

  it('a deopt on a line without heat keeps a label of its own; lines gone from the document get none', () => {
    const placed = placeLabels([hot(9)], [deopt(3, 'wrong map', 2)], layout);
    assert.deepEqual([...placed.values()].map((p) => [p.line, p.text, p.hot]), [[3, 'deopt: wrong map ×2', false]]);
  });

  it('counts tabs to their tab stop', () => {
    assert.equal(visualWidth('\t\treturn x;', 4), 17);
    assert.equal(visualWidth('ab\tc', 4), 5);
  });
});
