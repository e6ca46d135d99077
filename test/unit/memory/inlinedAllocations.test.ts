// Allocations through inlining: V8's sampling heap profiler charges an inlined callee's bytes to the frame
// it ran in. On hand-built heap profiles of the orders-api fixture's real lib/sales.js: a frame whose own
// code cannot allocate gives its bytes to the one inlined callee that can (bestRow → toRow); a frame where
// several can keeps them and says so (bestCaption: toRow and toLabel; salesRows: its own array and toRow);
// what each function's source can allocate; and the same placement in the editor's lines, the CLI and
// the allocation flamegraph.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { attributeProfile, type Attribution } from '../../../src/core/attribution';
import { allocationEvidence } from '../../../src/core/attribution/allocatingCode';
import { SourceFile } from '../../../src/core/attribution/sourceFile';
import { buildAllocationModel, type SamplingHeapProfile, type SamplingHeapProfileNode } from '../../../src/core/memory/heapProfile';
import { allocationLines, allocationSites } from '../../../src/core/memory/sites';
import { allocationFlamePayload } from '../../../src/core/memory/flame';
import type { ProfileModel } from '../../../src/core/profile';
import type { V8RawSignals } from '../../../src/core/v8/types';
import { memoryBlock } from '../../../src/cli/memoryOutput';
import { runtimeAnnotations } from '../../../src/core/annotate';
import { allocationHover, allocationLabel } from '../../../src/vscode/runtime/format';
import { treeFromPreorder } from '../../../src/shared/flame/tree';

const APP = path.resolve(__dirname, '../../fixtures/npm-apps/orders-api');
const SALES = path.join(APP, 'lib', 'sales.js');
const source = fs.readFileSync(SALES, 'utf8');
/** 1-based line and column of the `(` of `function <name>` (V8's position of the function). */
function pos(name: string): { line: number; column: number } {
  const lines = source.split('\n');
  const i = lines.findIndex((l) => l.includes(`function ${name}(`));
  if (i < 0) throw new Error(`${name} not in sales.js`);
  return { line: i + 1, column: lines[i].indexOf('(', lines[i].indexOf(`function ${name}`)) + 1 };
}
const lineOf = (text: string) => source.split('\n').findIndex((l) => l.includes(text)) + 1;
let nextId = 1;
function node(name: string, selfSize: number, children: SamplingHeapProfileNode[] = []): SamplingHeapProfileNode {
  const p = name === '(root)' ? { line: 0, column: 0 } : pos(name);
  return { id: nextId++, callFrame: { functionName: name, scriptId: '7', url: name === '(root)' ? '' : pathToFileURL(SALES).href, lineNumber: p.line - 1, columnNumber: p.column - 1 }, selfSize, children };
}
/** bestRow 300 KB, bestCaption 200 KB, salesRows 150 KB (each with what V8 inlined in it), toRow 10 KB before it was inlined. */
function profile(): SamplingHeapProfile {
  nextId = 1;
  return { head: node('(root)', 0, [node('bestRow', 300_000), node('bestCaption', 200_000), node('salesRows', 150_000, [node('toRow', 10_000)])]) };
}
const ref = (name: string) => ({ name, file: SALES, line: pos(name).line, column: pos(name).column });
function signals(): V8RawSignals {
  const host = (name: string, inlined: string[]) => ({ ...ref(name), optimizations: 1, marked: 1, aborted: [], deopts: [], inlined: inlined.map(ref), inlinedInto: [], inlineSites: [] });
  return {
    version: 1, collection: { collected: true, nodeVersion: 'v22.0.0' }, mode: 'launch',
    functions: [host('bestRow', ['toRow']), host('bestCaption', ['toRow', 'toLabel']), host('salesRows', ['toRow'])],
  };
}

describe('allocations through inlining', () => {
  let model: ProfileModel;
  let attr: Attribution;
  before(async () => {
    model = await buildAllocationModel(profile(), { sourceName: 'sales.heapprofile' });
    attr = await attributeProfile(model, { v8: signals(), allocations: true });
  });
  const site = (name: string) => allocationSites(model, attr, 100).find((s) => s.function === name);

  it('a frame whose own code cannot allocate: its bytes are the inlined callee\'s, which says where they ran', () => {
    assert.equal(site('bestRow'), undefined, 'bestRow allocates nothing itself: no site');
    const toRow = site('toRow')!;
    assert.equal(toRow.bytes, 310_000, 'its bytes in bestRow\'s frame and its own frame\'s');
    assert.equal(toRow.line, pos('toRow').line);
    assert.deepEqual(toRow.inlining?.ranInlinedInto, [{ function: 'bestRow', file: SALES, line: pos('bestRow').line, bytes: 300_000, placement: 'inlined' }]);
    assert.equal(toRow.bytesPerRequest, 3100);
  });

  it('several inlined callees that can allocate: the bytes stay on the frame, which names them and says why', () => {
    const caption = site('bestCaption')!;
    assert.equal(caption.bytes, 200_000);
    assert.deepEqual(caption.inlining?.includes?.map((c) => [c.function, c.reportedByV8]), [['toRow', true], ['toLabel', true]], 'in source order');
    assert.equal(caption.inlining!.notPlaced, `toRow (object literal, line ${lineOf('return { id: sale.id')}) and toLabel (template string, line ${lineOf('return `${sale.region}')}) can each allocate, and V8 charges inlined code's bytes to the frame it ran in`);
  });

  it('the frame\'s own code allocates too: not placed, and its own construct is named', () => {
    const rows = site('salesRows')!;
    assert.equal(rows.bytes, 150_000);
    assert.match(rows.inlining!.notPlaced!, new RegExp(`salesRows's own code \\(array literal, line ${lineOf('const rows = [];')}\\) and toRow`));
  });

  it('without V8\'s facts, the functions the source calls stand in, and a placement says it was inferred', async () => {
    const inferred = await attributeProfile(model, { allocations: true });
    const toRow = allocationSites(model, inferred, 100).find((s) => s.function === 'toRow')!;
    assert.deepEqual(toRow.inlining?.ranInlinedInto?.map((i) => [i.function, i.placement]), [['bestRow', 'inferred']]);
  });

  it('without the option (a CPU profile\'s attribution), bytes stay where V8 put them', async () => {
    const plain = await attributeProfile(model, { v8: signals() });
    const sites = allocationSites(model, plain, 100);
    assert.equal(sites.find((s) => s.function === 'bestRow')?.bytes, 300_000);
    assert.ok(sites.every((s) => s.inlining === undefined));
  });

  it('the editor\'s lines, the CLI and the allocation flamegraph say the same', () => {
    const lines = allocationLines(model, attr, 100);
    const toRow = lines.find((l) => l.function === 'toRow')!;
    assert.equal(toRow.line, pos('toRow').line);
    const anns = runtimeAnnotations({ allocations: lines }).get(SALES)!.allocations;
    const rowAnn = anns.find((a) => a.function === 'toRow')!;
    assert.equal(allocationLabel(rowAnn), 'allocates 3.03 KB/req (inlined)');
    assert.match(allocationHover(rowAnn, 'p'), /\*\*Ran inlined\*\*: V8 charged some of these bytes to the frames `toRow` was inlined into; their own code allocates nothing, so the bytes are `toRow`'s:\n- in `bestRow`: 293 KB sampled/);
    const captionAnn = anns.find((a) => a.function === 'bestCaption')!;
    assert.equal(allocationLabel(captionAnn), 'allocates 1.95 KB/req with inlined toRow, toLabel');
    assert.match(allocationHover(captionAnn, 'p'), /\*\*Includes inlined code\*\*: `toRow`, `toLabel`\. Not placed on one function: toRow .*object literal.* and toLabel/);

    const cli = memoryBlock({ allocations: { samplingIntervalBytes: 32768, includesCollected: true, totalBytes: 660_000, bytesPerRequest: 6600, sites: allocationSites(model, attr, 100), heapProfilePath: null }, gcPct: 1, gcPauses: null, gcSource: 'cpu-profile' }, APP);
    assert.match(cli, /toRow +lib\/sales\.js:\d+ +3\.03 KB +47\.0% +inlined in bestRow/);
    assert.match(cli, /toRow: 293 KB allocated while inlined in bestRow \(lib\/sales\.js:\d+\), whose own code allocates nothing/);
    assert.match(cli, /bestCaption includes inlined toRow, toLabel; its bytes are not placed on one function: toRow \(object literal/);

    const payload = allocationFlamePayload(model, { title: 'sales', requests: 100, attribution: attr });
    const { tree } = treeFromPreorder(payload.frames.parent, payload.frames.func, payload.frames.selfUs);
    const name = (f: number) => payload.strings[payload.functions.name[f]];
    const inl = Array.from({ length: tree.count }, (_, i) => i).filter((i) => payload.functions.inlinedOf![tree.func[i]] >= 0);
    assert.deepEqual(inl.map((i) => [name(tree.func[i]), name(tree.func[tree.parent[i]]), tree.selfUs[i]]), [['toRow', 'bestRow', 300_000]]);
    assert.equal(tree.selfUs[tree.parent[inl[0]]], 0, 'bestRow keeps none of it');
  });
});

describe('what a function\'s own code can allocate, by its source', () => {
  const evidence = (text: string, name: string, others: string[] = [], file = '/x/a.js') => {
    const f = new SourceFile(file, text);
    const lines = text.split('\n');
    const i = lines.findIndex((l) => l.includes(name));
    const fn = f.functionAt({ line: i + 1, column: lines[i].indexOf('(', lines[i].indexOf(name)) })!;
    assert.ok(fn, `${name} parsed`);
    return allocationEvidence(f, fn, new Set(others));
  };
  it('the fixture\'s functions', () => {
    const f = new SourceFile(SALES, source);
    const of = (name: string, others: string[]) => allocationEvidence(f, f.functionAt({ line: pos(name).line, column: pos(name).column - 1 })!, new Set(others));
    assert.deepEqual(of('bestRow', ['toRow']), { verdict: 'no' });
    assert.deepEqual(of('toRow', []), { verdict: 'yes', what: 'object literal', line: lineOf('return { id: sale.id') });
    assert.equal(of('toLabel', []).what, 'template string');
    assert.equal(of('salesRows', ['toRow']).what, 'array literal');
    assert.equal(of('bestRow', []).verdict, 'maybe', 'a call it cannot see into may be a built-in');
  });
  it('constructs that allocate, may allocate, or do not', () => {
    assert.equal(evidence('function f(a) { return a.map((x) => x + 1); }', 'function f').what, 'map()');
    assert.equal(evidence('function f(a, b) { return a + b; }', 'function f').verdict, 'maybe');
    assert.deepEqual(evidence('function f(a, b) { let s = 0; for (let i = 0; i < a; i++) s += i * b; return Math.max(s, 0); }', 'function f'), { verdict: 'no' });
    assert.equal(evidence('function f(a) { return "x" + a; }', 'function f').what, 'string concatenation');
    assert.equal(evidence('function f(a) { for (const x of a) g(x); }', 'function f', ['g']).what, 'for…of iterator');
    assert.equal(evidence('function f(a, i) { a[i] = 1; }', 'function f').what, 'element store (may grow the array)');
    assert.equal(evidence('const f = (a) => { return () => a; };', 'const f').what, 'closure');
    assert.equal(evidence('class A { m(x: number): number { return new Map().size + x; } }', 'm(', [], '/x/a.ts').what, 'new Map');
    assert.equal(evidence('async function f(p) { return await p; }', 'function f').what, 'await');
  });
});
