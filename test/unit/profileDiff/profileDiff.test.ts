import * as assert from 'node:assert/strict';
import { buildDiffPayload } from '../../../src/core/flame';
import { buildProfileModel, type ProfileModel } from '../../../src/core/profile';
import { diffProfiles, v8ChangeText, briefOf } from '../../../src/core/profileDiff/functions';
import { functionIdentities, inferProjectRoot, matchFunctions, nodeModuleName, packageRelative } from '../../../src/core/profileDiff/identity';
import type { V8FunctionSignals } from '../../../src/core/v8/types';
import { reportProfile } from '../../../src/core/workflow/report';
import { fixture } from '../profile/helpers';

/**
 * A .cpuprofile from call stacks: each entry is a stack (outermost first) of "name@url:line" frames and
 * the number of 1 ms samples spent with that stack on top.
 */
function profileOf(stacks: Array<[string[], number]>): ProfileModel {
  const nodes: Array<{ id: number; callFrame: object; children: number[] }> = [{ id: 1, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, children: [] }];
  const byPath = new Map<string, number>();
  const samples: number[] = [];
  for (const [stack, count] of stacks) {
    let parent = 1;
    let key = '';
    for (const frame of stack) {
      key += `|${frame}`;
      let id = byPath.get(key);
      if (id === undefined) {
        const m = /^(.*)@(.*):(-?\d+)$/.exec(frame)!;
        id = nodes.length + 1;
        nodes.push({ id, callFrame: { functionName: m[1], scriptId: String(id), url: m[2], lineNumber: Number(m[3]) - 1, columnNumber: 0 }, children: [] });
        nodes.find((n) => n.id === parent)!.children.push(id);
        byPath.set(key, id);
      }
      parent = id;
    }
    for (let i = 0; i < count; i++) samples.push(parent);
  }
  const profile = { nodes, startTime: 0, endTime: samples.length * 1000, samples, timeDeltas: samples.map(() => 1000) };
  return buildProfileModel(JSON.stringify(profile), { sourceMaps: false });
}

// The same script, run from two checkouts on two Node versions: different absolute paths, different
// loader frames, a builtin one version shows and the other inlines, and sumX slower on the newer one.
const NODE20 = profileOf([
  [['(anonymous)@file:///work/a/main.js:1', 'Module._compile@node:internal/modules/cjs/loader:1358', 'main@file:///work/a/main.js:10', 'sumX@file:///work/a/lib/sum.js:3'], 40],
  [['(anonymous)@file:///work/a/main.js:1', 'Module._compile@node:internal/modules/cjs/loader:1358', 'main@file:///work/a/main.js:10', 'map@:0', 'parse@file:///work/a/node_modules/fast-parse/index.js:20'], 40],
  [['(anonymous)@file:///work/a/main.js:1', 'Module._compile@node:internal/modules/cjs/loader:1358', 'main@file:///work/a/main.js:10'], 20],
]);
const NODE24 = profileOf([
  [['(anonymous)@file:///tmp/wt/main.js:1', 'executeUserEntryPoint@node:internal/modules/run_main:140', 'wrapModuleLoad@node:internal/modules/cjs/loader:220', 'main@file:///tmp/wt/main.js:12', 'sumX@file:///tmp/wt/lib/sum.js:3'], 70],
  [['(anonymous)@file:///tmp/wt/main.js:1', 'executeUserEntryPoint@node:internal/modules/run_main:140', 'wrapModuleLoad@node:internal/modules/cjs/loader:220', 'main@file:///tmp/wt/main.js:12', 'parse@file:///tmp/wt/node_modules/fast-parse/index.js:20'], 20],
  [['(anonymous)@file:///tmp/wt/main.js:1', 'executeUserEntryPoint@node:internal/modules/run_main:140', 'wrapModuleLoad@node:internal/modules/cjs/loader:220', 'main@file:///tmp/wt/main.js:12'], 10],
]);

describe('profile diff across runtimes and checkouts', () => {
  it('identities: files relative to the project or package, Node internals by module, natives transparent', () => {
    assert.equal(inferProjectRoot(NODE20), '/work/a');
    const ids = functionIdentities(NODE20);
    const sum = ids.find((i) => i.name === 'sumX')!;
    assert.equal(sum.file, 'lib/sum.js');
    assert.equal(sum.line, 3);
    const parse = ids.find((i) => i.name === 'parse')!;
    assert.equal(parse.file, 'fast-parse/index.js');
    assert.equal(parse.package, 'fast-parse');
    assert.ok(ids.find((i) => i.name === 'Module._compile')!.transparent);
    assert.ok(ids.find((i) => i.name === 'map')!.transparent);
    assert.equal(packageRelative('/x/node_modules/.pnpm/a@1/node_modules/@s/p/lib/i.js', '@s/p'), '@s/p/lib/i.js');
    assert.equal(nodeModuleName('internal/modules/cjs/loader.js'), 'node:internal/modules/cjs/loader');
  });

  it('matches a function whose line moved when it is the only candidate left on both sides', () => {
    const a = functionIdentities(NODE20);
    const b = functionIdentities(NODE24);
    const m = matchFunctions(a, b);
    const idOf = (ids: Int32Array, list: typeof a, name: string) => ids[list.findIndex((i) => i.name === name)];
    assert.equal(idOf(m.idsA, a, 'main'), idOf(m.idsB, b, 'main'), 'main moved from line 10 to 12 and still matches');
    assert.equal(idOf(m.idsA, a, 'sumX'), idOf(m.idsB, b, 'sumX'));
    assert.notEqual(idOf(m.idsA, a, 'Module._compile'), idOf(m.idsB, b, 'wrapModuleLoad'));
  });

  it('text diff: sumX matched on both sides with its share before and after', () => {
    const d = diffProfiles({ model: NODE20 }, { model: NODE24 });
    const sum = d.functions.find((f) => f.function === 'sumX')!;
    assert.deepEqual([Math.round(sum.selfPctBefore), Math.round(sum.selfPctAfter), sum.selfMsBefore, sum.selfMsAfter, sum.change], [40, 71, 40, 70, 'slower']);
    assert.equal(sum.file, 'lib/sum.js');
    assert.equal(d.functions[0].function, 'sumX', 'the biggest change first');
    const parse = d.functions.find((f) => f.function === 'parse')!;
    assert.equal(parse.change, 'faster');
    assert.ok(d.matched >= 3);
  });

  it('flamegraph diff: user frames under differing loader frames still find their before-time', () => {
    const p = buildDiffPayload(NODE20, NODE24, { sides: { before: { label: 'Node 20', nodeVersion: 'v20.19.4' }, after: { label: 'Node 24', nodeVersion: 'v24.21.0' } } });
    const name = (f: number) => p.strings[p.functions.name[f]];
    const frameOf = (fn: string) => [...p.frames.func].findIndex((f) => name(f) === fn);
    const sum = frameOf('sumX');
    assert.ok(sum > 0);
    assert.equal(p.diff!.beforeSelfUs[sum], 40_000, 'sumX: 40 ms before (under Module._compile), matched under wrapModuleLoad');
    assert.equal(p.frames.selfUs[sum], 70_000);
    assert.equal(p.diff!.beforeSelfUs[frameOf('parse')], 40_000, 'the builtin map between main and parse does not split the path');
    assert.equal(p.diff!.sides?.after.nodeVersion, 'v24.21.0');
  });

  it('threads: a pool\'s worker threads (and a command\'s other processes) match whatever their number', () => {
    const ids = (names: string[]) => functionIdentities({ functions: names.map((name) => ({ name, url: '', scriptId: '0', file: '', line: null, column: null, category: 'root', package: null })) } as unknown as ProfileModel, '');
    const a = ids(['(root)', 'main', 'worker 1 (pool.js)', 'process 4242 (marked in.md) worker 3 (w.js)']);
    const b = ids(['(root)', 'main', 'worker 2 (pool.js)', 'worker 3 (pool.js)', 'process 77 (marked in.md) worker 1 (w.js)', 'worker 4 (other.js)']);
    const m = matchFunctions(a, b);
    assert.deepEqual([...m.idsB.slice(0, 5)], [m.idsA[0], m.idsA[1], m.idsA[2], m.idsA[2], m.idsA[3]]);
    assert.ok(![...m.idsA].includes(m.idsB[5]), 'a worker of another script is another thread');
  });

  it('V8 changes per function, in words', () => {
    const s = (tier: V8FunctionSignals['tier'], deopts: Array<[string, number]>, optimizations = 1): V8FunctionSignals => ({
      tier, optimizations, inlinedInto: [], inlined: [],
      deopts: deopts.map(([reason, count]) => ({ kind: 'deopt-eager', reason, count, osr: false, file: '/a.js', line: 1, column: 1 })),
    });
    assert.equal(v8ChangeText(briefOf(s('TurboFan', [])), briefOf(s('Maglev', [['wrong map', 1]]))), 'TurboFan → Maglev, +1 deopt (wrong map)');
    assert.equal(v8ChangeText(briefOf(s('TurboFan', [['not a Smi', 2]])), briefOf(s('TurboFan', []))), '−2 deopts (not a Smi)');
    assert.equal(v8ChangeText(briefOf(s('TurboFan', [], 1)), briefOf(s('TurboFan', [], 6))), 'optimized 1× → 6×');
    assert.equal(v8ChangeText(briefOf(s('TurboFan', [])), briefOf(s('TurboFan', []))), null);
    assert.equal(v8ChangeText(null, briefOf(s('TurboFan', []))), null);
  });
});

describe('hotpath report --diff: the text diff of two profile files', () => {
  it('lists what appeared and disappeared between two recorded profiles', async () => {
    const r = await reportProfile(fixture('deps'), { diffWith: fixture('cpu-hot') });
    assert.ok(r.diff);
    const hot = r.diff.functions.find((f) => f.function === 'hotLoop')!;
    assert.equal(hot.change, 'gone');
    assert.ok(hot.selfPctBefore > 90);
    assert.equal(r.diff.functions.find((f) => f.function === 'crunch')?.file, 'fake-dep/index.js');
  });
});
