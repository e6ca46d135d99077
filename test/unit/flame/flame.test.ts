/**
 * Flamegraph data on the recorded fixtures: the merged left-heavy tree, the flame chart's runs and
 * spans, filters, the sandwich view, the differential matching and the payload's binary round trip.
 */
import * as assert from 'node:assert/strict';
import { loadProfile, type ProfileModel } from '../../../src/core/profile';
import {
  aggregate, buildDiffPayload, buildFlamePayload, buildTimeline, decodePayload, encodePayload, filterTree,
  outermostFramesOf, sandwich, timelineSpans, type FrameTree,
} from '../../../src/core/flame';
import { CategoryCode } from '../../../src/shared/flame/categories';
import { collapseTree, treeFromPreorder } from '../../../src/shared/flame/tree';
import { fixture, functionNamed } from '../profile/helpers';

const load = (name: string) => loadProfile(fixture(name), { sourceMaps: false });
const close = (actual: number, expected: number, what: string, tolerance = 1e-6) =>
  assert.ok(Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)), `${what}: ${actual} ≠ ${expected}`);

function checkTree(tree: FrameTree, what: string) {
  let self = 0;
  for (let i = 0; i < tree.count; i++) {
    self += tree.selfUs[i];
    const p = tree.parent[i];
    if (i === 0) {
      assert.equal(p, -1);
      continue;
    }
    assert.ok(p < i, `${what}: parent before child (pre-order)`);
    assert.equal(tree.depth[i], tree.depth[p] + 1);
    assert.ok(tree.end[i] <= tree.end[p]);
    assert.ok(tree.startUs[i] >= tree.startUs[p] - 1e-6 && tree.startUs[i] + tree.totalUs[i] <= tree.startUs[p] + tree.totalUs[p] + 1e-3, `${what}: child inside parent`);
  }
  close(self, tree.totalUs[0], `${what}: Σ self = root total`);
  // Left heavy: siblings in non-increasing total order, laid out from the parent's left edge; merged.
  for (let v = 0; v < tree.count; v++) {
    let previous = Infinity;
    let x = tree.startUs[v];
    const seen = new Set<number>();
    for (let c = v + 1; c < tree.end[v]; c = tree.end[c]) {
      assert.ok(tree.totalUs[c] <= previous, `${what}: children of ${v} heaviest first`);
      close(tree.startUs[c], x, `${what}: x of ${c}`);
      assert.ok(!seen.has(tree.func[c]), `${what}: one frame per function under a parent`);
      seen.add(tree.func[c]);
      previous = tree.totalUs[c];
      x += tree.totalUs[c];
    }
  }
}

function funcSelfInTree(tree: FrameTree, func: number): number {
  let s = 0;
  for (let i = 0; i < tree.count; i++) if (tree.func[i] === func) s += tree.selfUs[i];
  return s;
}

describe('flame: aggregated tree', () => {
  for (const name of ['cpu-hot', 'recursion', 'deps', 'ts-esbuild-inline', 'ts-tsc']) {
    it(`${name}: merged, left heavy, times preserved`, async () => {
      const model = await load(name);
      const { tree, nodeToFrame } = aggregate(model);
      checkTree(tree, name);
      close(tree.totalUs[0], model.durationUs, 'root total = duration');
      assert.ok(tree.count <= model.nodeCount);
      for (let f = 0; f < model.functions.length; f++) close(funcSelfInTree(tree, f), model.functionSelfUs[f], `self of ${model.functions[f].name}`);
      for (let v = 0; v < model.nodeCount; v++) assert.equal(tree.func[nodeToFrame[v]], model.nodes.func[v]);
    });
  }

  it('cpu-hot: hotLoop is the widest frame under the main script, and its total matches the model', async () => {
    const model = await load('cpu-hot');
    const hot = functionNamed(model, 'hotLoop').index;
    const { tree } = aggregate(model);
    const frames = outermostFramesOf(tree, hot);
    const total = frames.reduce((a, f) => a + tree.totalUs[f], 0);
    close(total, model.functionTotalUs[hot], 'hotLoop total');
    assert.ok(total / model.durationUs > 0.5, 'hotLoop dominates cpu-hot');
    // It is the first (left-most) child of its parent.
    const f = frames[0];
    assert.equal(f, tree.parent[f] + 1);
  });
});

describe('flame: timeline (flame chart)', () => {
  it('runs cover the profile and, per frame, add up to its self time', async () => {
    const model = await load('deps');
    const { tree, nodeToFrame } = aggregate(model);
    const tl = buildTimeline(model, nodeToFrame);
    assert.equal(tl.resampled, false);
    close(tl.endUs, model.durationUs, 'timeline length = duration');
    const perFrame = new Float64Array(tree.count);
    for (let r = 0; r < tl.frame.length; r++) {
      const end = r + 1 < tl.frame.length ? tl.startUs[r + 1] : tl.endUs;
      assert.ok(end > tl.startUs[r], 'runs have positive length');
      if (r > 0) assert.notEqual(tl.frame[r], tl.frame[r - 1], 'consecutive runs differ');
      perFrame[tl.frame[r]] += end - tl.startUs[r];
    }
    for (let i = 0; i < tree.count; i++) close(perFrame[i], tree.selfUs[i], `frame ${i} time`, 1e-9);
  });

  it('its length is exactly the model\'s duration (the resampled path relies on it)', async () => {
    for (const name of ['cpu-hot', 'recursion', 'deps', 'ts-tsc']) {
      const model = await load(name);
      const { nodeToFrame } = aggregate(model);
      assert.equal(buildTimeline(model, nodeToFrame, 1e9).endUs, model.durationUs, name);
      assert.equal(buildTimeline(model, nodeToFrame, 10).endUs, model.durationUs, name);
    }
  });

  it('resamples past maxRuns, keeping the length and the dominant frames', async () => {
    const model = await load('cpu-hot');
    const { tree, nodeToFrame } = aggregate(model);
    const full = buildTimeline(model, nodeToFrame);
    const small = buildTimeline(model, nodeToFrame, 50);
    assert.ok(full.frame.length > 50, 'the fixture has more than 50 runs');
    assert.equal(small.resampled, true);
    assert.ok(small.frame.length <= 50);
    close(small.endUs, full.endUs, 'same length');
    const hot = functionNamed(model, 'hotLoop').index;
    const inHot = (f: number) => { for (let g = f; g >= 0; g = tree.parent[g]) if (tree.func[g] === hot) return true; return false; };
    let hotTime = 0;
    for (let r = 0; r < small.frame.length; r++) if (inHot(small.frame[r])) hotTime += (r + 1 < small.frame.length ? small.startUs[r + 1] : small.endUs) - small.startUs[r];
    close(hotTime / small.endUs, model.functionTotalUs[hot] / model.durationUs, 'hotLoop share survives resampling', 0.15);
  });

  it('spans: stacks at pixel columns, continuous while the frame stays', async () => {
    const model = await load('recursion');
    const { tree, nodeToFrame } = aggregate(model);
    const tl = buildTimeline(model, nodeToFrame);
    const spans = timelineSpans(tl, tree, null, 0, tl.endUs, 800);
    assert.ok(spans.count > 0);
    let depth1 = 0;
    for (let s = 0; s < spans.count; s++) {
      const f = spans.frame[s];
      assert.equal(tree.depth[f], spans.depth[s]);
      assert.ok(spans.endUs[s] > spans.startUs[s]);
      if (spans.depth[s] > 1) {
        // A span lies inside a span of its parent frame.
        const p = tree.parent[f];
        let inside = false;
        for (let k = 0; k < spans.count && !inside; k++) inside = spans.frame[k] === p && spans.startUs[k] <= spans.startUs[s] + 1e-6 && spans.endUs[k] >= spans.endUs[s] - 1e-6;
        assert.ok(inside, `span ${s} inside its parent's`);
      } else {
        depth1 += spans.endUs[s] - spans.startUs[s];
      }
    }
    close(depth1, tl.endUs, 'top-level spans cover the window', 1e-6);
    assert.ok(spans.maxDepth > 10, 'fib recursion is deep');
    // A zoomed window sees only its part.
    const zoomed = timelineSpans(tl, tree, null, tl.endUs / 4, tl.endUs / 2, 400);
    for (let s = 0; s < zoomed.count; s++) assert.ok(zoomed.startUs[s] >= tl.endUs / 4 - 1e-6 && zoomed.endUs[s] <= tl.endUs / 2 + 1e-6);
  });
});

/**
 * The flame chart's spans as first written (every column walks its whole stack, each run found by binary
 * search): the oracle for timelineSpans, which walks only to the frame the open spans share and searches
 * forward from the last column's run.
 */
function referenceSpans(tl: ReturnType<typeof buildTimeline>, tree: FrameTree, mapTo: Int32Array | null, t0: number, t1: number, columns: number) {
  const out: Array<[number, number, number, number]> = [];
  const runAt = (t: number) => {
    const n = tl.frame.length;
    if (n === 0 || t < tl.startUs[0] || t >= tl.endUs) return -1;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (tl.startUs[mid] <= t) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const open: number[] = [];
  const openStart: number[] = [];
  let openLen = 0;
  const stack: number[] = [];
  const dt = (t1 - t0) / Math.max(1, columns);
  for (let c = 0; c <= columns; c++) {
    const colStart = t0 + c * dt;
    let len = 0;
    if (c < columns) {
      const r = runAt(colStart + dt / 2);
      if (r >= 0) {
        let f = tl.frame[r];
        if (mapTo) f = mapTo[f];
        len = tree.depth[f];
        for (let g = f; tree.depth[g] > 0; g = tree.parent[g]) stack[tree.depth[g]] = g;
      }
    }
    let d = 1;
    while (d <= openLen && d <= len && open[d] === stack[d]) d++;
    for (let k = openLen; k >= d; k--) out.push([open[k], k, openStart[k], colStart]);
    for (let k = d; k <= len; k++) {
      open[k] = stack[k];
      openStart[k] = colStart;
    }
    openLen = len;
  }
  return out;
}

describe('flame: chart spans', () => {
  it('are the spans of walking every column\'s whole stack, for any window, width and filter', async () => {
    for (const name of ['recursion', 'deps', 'cpu-hot']) {
      const model = await load(name);
      const { tree, nodeToFrame } = aggregate(model);
      const tl = buildTimeline(model, nodeToFrame);
      const filtered = filterTree(tree, (f) => model.functions[f].category !== 'user' && f !== tree.func[0]);
      const end = tl.endUs;
      const windows: Array<[number, number]> = [[0, end], [end / 4, end / 2], [end / 3, end / 3 + end / 1000], [-end / 10, end * 1.1], [end * 0.999, end]];
      let compared = 0;
      for (const [t0, t1] of windows) {
        for (const columns of [1, 7, 400, 1600, 5000]) {
          for (const [t, mapTo] of [[tree, null], [filtered.tree, filtered.mapTo]] as const) {
            const spans = timelineSpans(tl, t, mapTo, t0, t1, columns);
            const got = Array.from({ length: spans.count }, (_, s) => [spans.frame[s], spans.depth[s], spans.startUs[s], spans.endUs[s]]);
            assert.deepEqual(got, referenceSpans(tl, t, mapTo, t0, t1, columns), `${name} [${t0}, ${t1}) at ${columns} columns${mapTo ? ', filtered' : ''}`);
            compared += spans.count;
          }
        }
      }
      assert.ok(compared > 500, `${name}: ${compared} spans compared`);
    }
  });
});

describe('flame: filters', () => {
  it('hiding idle, GC and program keeps every total and drops those frames', async () => {
    const model = await load('deps');
    const { tree } = aggregate(model);
    const cat = (f: number) => model.functions[f].category;
    const { tree: filtered, mapTo } = filterTree(tree, (f) => ['idle', 'gc', 'program'].includes(cat(f)));
    checkTree(filtered, 'filtered');
    close(filtered.totalUs[0], tree.totalUs[0], 'root total unchanged');
    for (let i = 0; i < filtered.count; i++) assert.ok(!['idle', 'gc', 'program'].includes(cat(filtered.func[i])));
    for (let i = 0; i < tree.count; i++) {
      if (!['idle', 'gc', 'program'].includes(cat(tree.func[i]))) assert.equal(filtered.func[mapTo[i]], tree.func[i]);
    }
  });

  it('just my code: dependency and native time folds into the user caller', async () => {
    const model = await load('deps');
    const { tree } = aggregate(model);
    const { tree: mine } = filterTree(tree, (f) => model.functions[f].category !== 'user' && f !== tree.func[0]);
    checkTree(mine, 'just my code');
    for (let i = 1; i < mine.count; i++) assert.equal(model.functions[mine.func[i]].category, 'user');
    for (const name of ['heavyCaller', 'useDep', 'useScoped']) {
      const f = functionNamed(model, name).index;
      const before = outermostFramesOf(tree, f).reduce((a, x) => a + tree.totalUs[x], 0);
      const after = outermostFramesOf(mine, f).reduce((a, x) => a + mine.totalUs[x], 0);
      close(after, before, `${name} total kept`);
      close(funcSelfInTree(mine, f), after - outermostFramesOf(mine, f).reduce((a, x) => a + (mine.totalUs[x] - mine.selfUs[x]), 0), `${name} self`);
    }
  });

  it('by package: each run of one package\'s frames becomes one frame; totals and every other frame kept', async () => {
    const model = await load('deps');
    const { tree } = aggregate(model);
    const packages = [...new Set(model.functions.map((f) => (f.category === 'dependency' ? f.package : null)).filter((p): p is string => !!p))];
    assert.ok(packages.length >= 2, `the fixture uses packages: ${packages}`);
    const base = model.functions.length;
    const groupOf = (f: number) => {
      const info = model.functions[f];
      return f < base && info?.category === 'dependency' && info.package ? base + packages.indexOf(info.package) : -1;
    };
    const { tree: folded, mapTo } = collapseTree(tree, groupOf);
    checkTree(folded, 'by package');
    close(folded.totalUs[0], tree.totalUs[0], 'root total unchanged');
    // No package frame has a parent frame of the same package, and no original package frame survives.
    for (let i = 1; i < folded.count; i++) {
      assert.ok(folded.func[i] < base || folded.func[folded.parent[i]] !== folded.func[i], 'a package frame never sits under itself');
      assert.equal(groupOf(folded.func[i]), -1, 'package functions are replaced by their package');
    }
    // Each package's time, with the package anywhere on the stack, is what its folded frames total.
    for (const [k, pkg] of packages.entries()) {
      const g = base + k;
      const frames = outermostFramesOf(folded, g);
      assert.ok(frames.length > 0, `${pkg} has a frame`);
      let before = 0;
      for (let i = 1; i < tree.count; i++) {
        if (groupOf(tree.func[i]) !== g) continue;
        let outer = true;
        for (let a = tree.parent[i]; a > 0; a = tree.parent[a]) if (groupOf(tree.func[a]) === g) { outer = false; break; }
        if (outer) before += tree.totalUs[i];
      }
      close(frames.reduce((a, x) => a + folded.totalUs[x], 0), before, `${pkg} total`);
    }
    for (let i = 0; i < tree.count; i++) if (groupOf(tree.func[i]) < 0) assert.equal(folded.func[mapTo[i]], tree.func[i], 'other frames map to themselves');
  });
});

describe('flame: sandwich', () => {
  it('deps: the regex native has heavyCaller as its main caller, lightCaller second', async () => {
    const model = await load('deps');
    const { tree } = aggregate(model);
    const heavy = functionNamed(model, 'heavyCaller').index;
    const light = functionNamed(model, 'lightCaller').index;
    // The native whose time comes through both callers (the regex code), picked by its callers.
    const s0 = sandwich(tree, heavy);
    const calleeFuncs = Array.from(s0.callees.func.subarray(1, s0.callees.count));
    const regex = calleeFuncs.find((f) => model.functions[f].category !== 'user' && sandwich(tree, f).callers.count > 2 && outermostFramesOf(tree, f).length > 0 && /replace|RegExp/i.test(model.functions[f].name))!;
    assert.ok(regex !== undefined, 'a regex/replace native under heavyCaller');
    const s = sandwich(tree, regex);
    checkTree(s.callers, 'callers');
    checkTree(s.callees, 'callees');
    close(s.totalUs, model.functionTotalUs[regex], 'sandwich total = function total');
    close(s.callers.totalUs[0], s.totalUs, 'callers root = total');
    close(s.callees.totalUs[0], s.totalUs, 'callees root = total');
    const direct = (t: FrameTree, f: number) => { for (let c = 1; c < t.end[0]; c = t.end[c]) if (t.func[c] === f) return t.totalUs[c]; return 0; };
    assert.ok(direct(s.callers, heavy) > direct(s.callers, light), 'heavyCaller calls it more than lightCaller');
    assert.ok(direct(s.callers, light) > 0);
  });

  it('diff: the before-profile times travel into both sandwich trees', async () => {
    const before = await load('cpu-hot');
    const after = await load('deps');
    const p = buildDiffPayload(before, after);
    const { tree } = treeFromPreorder(p.frames.parent, p.frames.func, p.frames.selfUs, p.diff!.beforeSelfUs);
    const subtreeSums = (t: FrameTree, values: Float64Array) => {
      const sums = Float64Array.from(values);
      for (let i = t.count - 1; i > 0; i--) sums[t.parent[i]] += sums[i];
      return sums;
    };
    let checked = 0;
    let withBefore = 0;
    for (const name of ['heavyCaller', '(program)', '(garbage collector)']) {
      const f = functionNamed(after, name).index;
      const roots = outermostFramesOf(tree, f);
      const beforeUnder = roots.reduce((a, r) => a + subtreeSums(tree, tree.extraUs!)[r], 0);
      if (beforeUnder > 0) withBefore++;
      const s = sandwich(tree, f);
      assert.ok(s.callers.extraUs && s.callees.extraUs, `${name}: both trees carry before-times`);
      close(subtreeSums(s.callees, s.callees.extraUs)[0], beforeUnder, `${name}: callees hold the before time under the function`);
      close(subtreeSums(s.callers, s.callers.extraUs)[0], beforeUnder, `${name}: callers hold it too, by call path`);
      // Each caller path's before time is the before total of the frames it stands for.
      for (let c = 1; c < s.callers.end[0]; c = s.callers.end[c]) {
        const direct = roots.filter((r) => tree.func[tree.parent[r]] === s.callers.func[c]);
        close(subtreeSums(s.callers, s.callers.extraUs)[c], direct.reduce((a, r) => a + subtreeSums(tree, tree.extraUs!)[r], 0), `${name}: via ${after.functions[s.callers.func[c]].name}`);
        checked++;
      }
    }
    assert.ok(checked > 0 && withBefore >= 2, `${checked} callers, ${withBefore} functions with before-time`);
    // Without a diff, nothing extra appears.
    assert.equal(sandwich(aggregate(after).tree, functionNamed(after, 'heavyCaller').index).callers.extraUs, undefined);
  });

  it('recursion: fib counted once', async () => {
    const model = await load('recursion');
    const { tree } = aggregate(model);
    const fib = functionNamed(model, 'fib').index;
    const s = sandwich(tree, fib);
    close(s.totalUs, model.functionTotalUs[fib], 'fib total');
    const runFib = functionNamed(model, 'runFib').index;
    assert.equal(s.callers.func[1], runFib, 'runFib is the (only) outer caller');
    assert.ok(s.callees.maxDepth > 5, 'recursive callees stay nested');
  });
});

describe('flame: differential and payload', () => {
  it('a profile against itself: every frame has its own self time as before-time', async () => {
    const model = await load('deps');
    const p = buildDiffPayload(model, model);
    assert.ok(p.diff);
    for (let i = 0; i < p.frames.parent.length; i++) close(p.diff.beforeSelfUs[i], p.frames.selfUs[i], `frame ${i}`);
  });

  it('different programs: unmatched paths get 0, matched (root, program, idle) keep their time', async () => {
    const before = await load('cpu-hot');
    const after = await load('deps');
    const p = buildDiffPayload(before, after);
    const heavy = functionNamed(after, 'heavyCaller').index;
    for (let i = 0; i < p.frames.func.length; i++) if (p.frames.func[i] === heavy) assert.equal(p.diff!.beforeSelfUs[i], 0);
    let sum = 0;
    for (const v of p.diff!.beforeSelfUs) sum += v;
    assert.ok(sum > 0 && sum <= before.durationUs + 1e-6);
  });

  it('matches call paths by name and file even when lines moved', async () => {
    const model = await load('cpu-hot');
    const moved: ProfileModel = { ...model, functions: model.functions.map((f) => ({ ...f, line: f.line === null ? null : f.line + 7 })) };
    const p = buildDiffPayload(moved, model);
    for (let i = 0; i < p.frames.parent.length; i++) close(p.diff!.beforeSelfUs[i], p.frames.selfUs[i], `frame ${i}`);
  });

  it('payload: function table and frames; encode/decode round trip', async () => {
    const model = await load('cpu-hot');
    const p = buildFlamePayload(model);
    const hot = functionNamed(model, 'hotLoop');
    assert.equal(p.strings[p.functions.name[hot.index]], 'hotLoop');
    assert.equal(p.functions.line[hot.index], hot.info.line);
    assert.equal(p.functions.category[hot.index], CategoryCode.user);
    assert.equal(p.meta.durationUs, model.durationUs);
    const { header, binary } = encodePayload(p);
    const text = JSON.stringify(header);
    const back = decodePayload(JSON.parse(text), new Uint8Array(binary));
    assert.deepEqual(back.frames, p.frames);
    assert.deepEqual(back.functions, p.functions);
    assert.deepEqual(back.timeline, p.timeline);
    assert.deepEqual(back.strings, p.strings);
    // Compact: the payload is a fraction of the profile.
    assert.ok(binary.byteLength + text.length < 40_000, `payload ${binary.byteLength + text.length} bytes`);
  });
});
