/**
 * Inlined callees as frames of their own (core/flame/inlined.ts): the flamegraph takes attribution's
 * placements, so per function its self and total time equal the editor's, whichever view reads them
 * (search's outermost totals, the sandwich, the differential view), and the payload carries the marking.
 * Profiles are built by hand over the real fixture sources (test/unit/attribution/synth.ts).
 */
import * as assert from 'node:assert/strict';
import { attributeProfile, type Attribution } from '../../../src/core/attribution';
import { aggregate, buildDiffPayload, buildFlamePayload, decodePayload, encodePayload, sandwich, type FlamePayload } from '../../../src/core/flame';
import { inlineSourceOf, inlineSplit, INLINED_BY_V8, INLINED_INFERRED, type InlineSource } from '../../../src/core/flame/inlined';
import { addV8FlameExtras } from '../../../src/core/v8/flameExtras';
import type { ProfileModel } from '../../../src/core/profile';
import type { V8FunctionSignals } from '../../../src/core/v8/types';
import { treeFromPreorder, type FrameTree } from '../../../src/shared/flame/tree';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadProfile } from '../../../src/core/profile';
import { loadEditorProfile } from '../../../src/core/workflow/editorProfile';
import { file, fn, SRC, synthModel, synthProfile } from '../attribution/synth';
import { APP, body, callLine, lineTotal, moduleFrame, PRICING, quote, quoteAndTwice, signals, twice } from './inlinedProfiles';

/** quote (2 ms on its call line, 70 ms of inlined lineTotal), and a real lineTotal frame under twice (9 ms). */
const profile = (): ProfileModel => synthModel(quoteAndTwice({ quoteOwn: 2, inlinedLoop: 10, inlinedBody: 60, twiceOwn: 1, lineTotalOwn: 9 }));

const treeOf = (p: FlamePayload): FrameTree => treeFromPreorder(p.frames.parent, p.frames.func, p.frames.selfUs, p.diff?.beforeSelfUs).tree;
const nameOf = (p: FlamePayload, f: number) => p.strings[p.functions.name[f]] || '(anonymous)';
const canonical = (p: FlamePayload) => (f: number) => (p.functions.inlinedOf && p.functions.inlinedOf[f] >= 0 ? p.functions.inlinedOf[f] : f);
const framesNamed = (p: FlamePayload, tree: FrameTree, name: string) => Array.from({ length: tree.count }, (_, i) => i).filter((i) => i > 0 && nameOf(p, tree.func[i]) === name);
/** What the page's search shows for a name: time under matching frames, nested matches counted once. */
function searchUs(p: FlamePayload, tree: FrameTree, name: string): number {
  let us = 0;
  for (let i = 1; i < tree.count;) {
    if (nameOf(p, tree.func[i]) === name) { us += tree.totalUs[i]; i = tree.end[i]; } else i++;
  }
  return us;
}
/** Self time per attribution function from the tree (twins counted as their function). */
function selfByFunction(p: FlamePayload, tree: FrameTree): Map<number, number> {
  const out = new Map<number, number>();
  const c = canonical(p);
  for (let i = 0; i < tree.count; i++) out.set(c(tree.func[i]), (out.get(c(tree.func[i])) ?? 0) + tree.selfUs[i]);
  return out;
}
const idOf = (attr: Attribution, name: string) => attr.functions.findIndex((f) => f.name === name);

describe('flame: inlined callees as frames of their own', () => {
  let model: ProfileModel;
  let attr: Attribution;
  let payload: FlamePayload;
  let tree: FrameTree;
  before(async () => {
    model = profile();
    attr = await attributeProfile(model, { v8: signals() });
    payload = buildFlamePayload(model, { attribution: attr });
    tree = treeOf(payload);
  });

  it('the ticks attribution placed in lineTotal leave quote\'s frame for an inlined lineTotal frame under it', () => {
    const [q] = framesNamed(payload, tree, 'quote');
    assert.equal(tree.selfUs[q], 2000, 'quote keeps only its own line');
    const kids = framesNamed(payload, tree, 'lineTotal').filter((i) => tree.parent[i] === q);
    assert.equal(kids.length, 1);
    const t = tree.func[kids[0]];
    assert.equal(tree.selfUs[kids[0]], 70_000);
    assert.equal(payload.functions.extras?.inlined?.[t], INLINED_BY_V8, 'marked inlined, as V8 reported it');
    assert.ok(payload.functions.inlinedOf && payload.functions.inlinedOf[t] >= 0, 'a twin of lineTotal');
    // The real lineTotal frame under twice is not inlined, and is the same function as the twin.
    const [real] = framesNamed(payload, tree, 'lineTotal').filter((i) => nameOf(payload, tree.func[tree.parent[i]]) === 'twice');
    assert.equal(payload.functions.extras?.inlined?.[tree.func[real]], 0);
    assert.equal(payload.functions.inlinedOf![t], tree.func[real]);
    assert.equal(payload.strings[payload.functions.file[t]], file(PRICING), 'its own file and line');
    assert.equal(payload.functions.line[t], lineTotal[0]);
  });

  it('per function, self time equals the editor\'s; search totals equal its total time', () => {
    const self = selfByFunction(payload, tree);
    for (const name of ['quote', 'twice', 'lineTotal']) {
      const id = idOf(attr, name);
      assert.equal(Math.round(self.get(id) ?? 0), Math.round(attr.selfUs[id]), `${name} self`);
      assert.equal(Math.round(searchUs(payload, tree, name)), Math.round(attr.totalUs[id]), `${name} total`);
    }
    assert.equal(Math.round(attr.selfUs[idOf(attr, 'lineTotal')]), 79_000, 'inlined 70 ms + its own frame 9 ms');
  });

  it('the frames as V8 charged them without an attribution (or one that placed nothing)', async () => {
    const plain = buildFlamePayload(model);
    const { tree: expected } = aggregate(model);
    assert.deepEqual(Array.from(plain.frames.selfUs), Array.from(expected.selfUs));
    assert.equal(plain.functions.count, model.functions.length);
    assert.equal(plain.functions.inlinedOf, undefined);
    assert.equal(searchUs(plain, treeOf(plain), 'lineTotal'), 9000, 'V8 charged the inlined 70 ms to quote');
    assert.equal(inlineSplit(model, await attributeProfile(synthModel([moduleFrame([fn('twice', APP, twice[0], twice[1], { ticks: { [twice[0] + 1]: 3 } })])]))), undefined);
  });

  it('the sandwich of lineTotal holds its inlined frames and its own, callers from both', () => {
    const real = framesNamed(payload, tree, 'lineTotal').find((i) => payload.functions.inlinedOf![tree.func[i]] < 0)!;
    const s = sandwich(tree, tree.func[real], canonical(payload));
    assert.equal(s.totalUs, 79_000);
    const callers = Array.from({ length: s.callers.count - 1 }, (_, i) => nameOf(payload, s.callers.func[i + 1])).sort();
    assert.ok(callers.includes('quote') && callers.includes('twice'), callers.join());
    // Without the mapping the inlined time would be missing: the view as it was before.
    assert.equal(sandwich(tree, tree.func[real]).totalUs, 9000);
  });

  it('a callee V8 did not report (inferred from the source) is marked so', async () => {
    const inferred = buildFlamePayload(model, { attribution: await attributeProfile(model) });
    const t = treeOf(inferred);
    const [q] = framesNamed(inferred, t, 'quote');
    const child = framesNamed(inferred, t, 'lineTotal').find((i) => t.parent[i] === q)!;
    assert.equal(inferred.functions.extras?.inlined?.[t.func[child]], INLINED_INFERRED);
  });

  it('a function that only ran inlined is added to the table with its twin, under each frame it ran in', async () => {
    const only = synthModel([moduleFrame([
      fn('quote', APP, quote[0], quote[1], { ticks: { [callLine]: 1, [body]: 20 } }),
      fn('twice', APP, twice[0], twice[1], { ticks: { [body]: 5 } }),
    ])]);
    const a = await attributeProfile(only, { v8: signals(true) });
    const p = buildFlamePayload(only, { attribution: a });
    const t = treeOf(p);
    const frames = framesNamed(p, t, 'lineTotal');
    assert.deepEqual(frames.map((i) => nameOf(p, t.func[t.parent[i]])).sort(), ['quote', 'twice']);
    const of = new Set(frames.map((i) => p.functions.inlinedOf![t.func[i]]));
    assert.equal(of.size, 1, 'both twins are frames of one function');
    const g = [...of][0];
    assert.ok(g >= only.functions.length, 'known only through attribution');
    assert.equal(nameOf(p, g), 'lineTotal');
    assert.equal(p.functions.inlinedOf![g], -1);
    assert.equal(searchUs(p, t, 'lineTotal'), 25_000);
    assert.equal(sandwich(t, g, canonical(p)).totalUs, 25_000);
  });

  it('an inlined frame nested under a frame of its own function counts once (as the editor\'s total does)', async () => {
    // lineTotal → quote (inlining lineTotal): recursion through an inlined frame.
    const nested = synthModel([moduleFrame([fn('lineTotal', PRICING, lineTotal[0], lineTotal[1], { ticks: { [body]: 4 }, children: [
      fn('quote', APP, quote[0], quote[1], { ticks: { [callLine]: 1, [body]: 30 } }),
    ] })])]);
    const a = await attributeProfile(nested, { v8: signals() });
    const p = buildFlamePayload(nested, { attribution: a });
    const t = treeOf(p);
    assert.equal(framesNamed(p, t, 'lineTotal').length, 2);
    assert.equal(Math.round(searchUs(p, t, 'lineTotal')), Math.round(a.totalUs[idOf(a, 'lineTotal')]));
    assert.equal(Math.round(searchUs(p, t, 'lineTotal')), 35_000);
  });

  it('the flame chart keeps V8\'s frames: every run is a frame of the tree, inlined frames appear in none', () => {
    const timeline = payload.timeline!;
    const twins = new Set(Array.from({ length: tree.count }, (_, i) => i).filter((i) => payload.functions.inlinedOf![tree.func[i]] >= 0));
    assert.ok(twins.size > 0);
    for (const f of timeline.frame) {
      assert.ok(f >= 0 && f < tree.count);
      assert.ok(!twins.has(f));
    }
  });

  it('survives the report\'s encoding and the tier extras: an inlined frame takes the tier of the code it ran in', () => {
    const quoteFn = model.functions.findIndex((f) => f.name === 'quote');
    const totalFn = model.functions.findIndex((f) => f.name === 'lineTotal');
    const byFunction = new Map<number, V8FunctionSignals>([
      [quoteFn, { tier: 'TurboFan', optimizations: 1, deopts: [] } as unknown as V8FunctionSignals],
      [totalFn, { tier: 'Ignition', optimizations: 0, deopts: [] } as unknown as V8FunctionSignals],
    ]);
    const p = addV8FlameExtras(buildFlamePayload(model, { attribution: attr }), byFunction);
    const { header, binary } = encodePayload(p);
    const back = decodePayload(JSON.parse(JSON.stringify(header)), binary);
    assert.deepEqual(Array.from(back.functions.inlinedOf!), Array.from(p.functions.inlinedOf!));
    assert.deepEqual(Array.from(back.functions.extras!.inlined), Array.from(p.functions.extras!.inlined));
    const t = treeOf(back);
    const [q] = framesNamed(back, t, 'quote');
    const twin = t.func[framesNamed(back, t, 'lineTotal').find((i) => t.parent[i] === q)!];
    const tier = back.functions.extras!.tier;
    assert.equal(tier[twin], tier[quoteFn], 'TurboFan: the code of quote it ran inlined in');
    assert.notEqual(tier[twin], tier[totalFn]);
  });

  describe('the differential view', () => {
    it('a callee inlined on one side and called on the other is the same function on the same path', async () => {
      // Before: lineTotal a frame of its own under quote (40 ms). After: inlined into quote (70 ms).
      const before = synthModel([moduleFrame([fn('quote', APP, quote[0], quote[1], { ticks: { [callLine]: 2 }, children: [fn('lineTotal', PRICING, lineTotal[0], lineTotal[1], { ticks: { [body]: 40 } })] })])]);
      const after = synthModel([moduleFrame([fn('quote', APP, quote[0], quote[1], { ticks: { [callLine]: 2, [body]: 70 } })])]);
      const p = buildDiffPayload(before, after, {
        attribution: await attributeProfile(after, { v8: signals() }), beforeAttribution: await attributeProfile(before, { v8: signals() }),
      });
      const t = treeOf(p);
      const [inl] = framesNamed(p, t, 'lineTotal');
      assert.ok(p.functions.inlinedOf![t.func[inl]] >= 0, 'after: an inlined frame');
      assert.equal(p.diff!.beforeSelfUs[inl], 40_000, 'before: its own frame\'s 40 ms');
      const [q] = framesNamed(p, t, 'quote');
      assert.equal(p.diff!.beforeSelfUs[q], 2000);
    });

    it('a side whose sources are gone (a revision\'s temporary worktree) is split as it was placed during the run', async () => {
      // Side A ran from a copy of the sources that is removed after the run, as compare's worktree is.
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-inlined-diff-'));
      const worktree = path.join(tmp, 'worktree');
      fs.cpSync(SRC, worktree, { recursive: true });
      const text = (ms: number) => synthProfile(quoteAndTwice({ quoteOwn: 2, inlinedBody: ms, twiceOwn: 1, lineTotalOwn: 1 }));
      const beforeFile = path.join(tmp, 'a.cpuprofile');
      const afterFile = path.join(tmp, 'b.cpuprofile');
      fs.writeFileSync(beforeFile, text(40).split(pathToFileURL(SRC).href).join(pathToFileURL(worktree).href));
      fs.writeFileSync(afterFile, text(90));
      try {
        const a = await loadProfile(beforeFile, { sourceMaps: true, thread: 'main' });
        const atRun = await attributeProfile(a, { v8: { ...signals(), functions: signals().functions.map((f) => ({ ...f, file: f.file.replace(SRC, worktree), inlined: f.inlined.map((r) => ({ ...r, file: r.file.replace(SRC, worktree) })) })) } });
        assert.ok(atRun.entryInlinee.some((g) => g >= 0), 'placed while the worktree existed');
        fs.rmSync(worktree, { recursive: true, force: true });
        const inlinedBefore = async (beforeInline?: InlineSource) => {
          const { payload } = await loadEditorProfile({ file: afterFile, before: beforeFile, maxFunctions: 5, ...(beforeInline ? { beforeInline } : {}) });
          const t = treeOf(payload);
          const inl = framesNamed(payload, t, 'lineTotal').filter((i) => payload.functions.inlinedOf![t.func[i]] >= 0 && nameOf(payload, t.func[t.parent[i]]) === 'quote');
          return inl.reduce((sum, i) => sum + payload.diff!.beforeSelfUs[i], 0);
        };
        assert.equal(await inlinedBefore(inlineSourceOf(atRun)), 40_000, 'A\'s 40 ms of inlined lineTotal are compared with B\'s');
        assert.equal(await inlinedBefore(), 0, 'read again from the (gone) sources, A\'s inlined time could not be placed');
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    });

    it('inlined on both sides: the frames match, and quote\'s own time is compared with quote\'s own', async () => {
      const side = (ms: number) => synthModel([moduleFrame([fn('quote', APP, quote[0], quote[1], { ticks: { [callLine]: 2, [body]: ms } })])]);
      const [before, after] = [side(30), side(90)];
      const p = buildDiffPayload(before, after, {
        attribution: await attributeProfile(after, { v8: signals() }), beforeAttribution: await attributeProfile(before, { v8: signals() }),
      });
      const t = treeOf(p);
      const [inl] = framesNamed(p, t, 'lineTotal');
      const [q] = framesNamed(p, t, 'quote');
      assert.deepEqual([p.diff!.beforeSelfUs[inl], t.selfUs[inl]], [30_000, 90_000]);
      assert.deepEqual([p.diff!.beforeSelfUs[q], t.selfUs[q]], [2000, 2000]);
    });
  });
});
