/**
 * The model on recorded profiles (known hot functions and lines, recursion, dependencies, natives,
 * GC) and on a hand-computed synthetic profile (exact µs).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildProfileModel, loadProfile, rankHotspots, rankLines, type ProfileModel } from '../../../src/core/profile';
import { FIXTURE_SRC, fixture, functionNamed, lineMatching, markerLine, readFixture } from './helpers';

const load = (name: string) => loadProfile(fixture(name), { sourceMaps: false });
const close = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= 1e-6 * Math.max(1, Math.abs(expected)), `${what}: ${actual} ≠ ${expected}`);

/** A deliberately naive reference: per-node self µs by id, straight from JSON.parse (profile-lines.js). */
function referenceSelfById(text: string): Map<number, number> {
  const p = JSON.parse(text) as { samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };
  const times: number[] = [];
  let t = p.startTime;
  for (const d of p.timeDeltas) times.push((t += d));
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => {
    const d = (i + 1 < times.length ? times[i + 1] : p.endTime) - times[i];
    self.set(id, (self.get(id) ?? 0) + Math.max(0, d));
  });
  return self;
}

/** 1-based column of the `(` of `function <name>(` in a fixture file: what V8 reports for a function. */
function declColumn(file: string, name: string): number {
  const line = fs.readFileSync(path.join(FIXTURE_SRC, file), 'utf8').split('\n')[lineMatching(file, new RegExp(`function ${name}\\(`)) - 1];
  return line.indexOf(`function ${name}(`) + `function ${name}`.length + 1;
}

describe('profile model: recorded profiles', () => {
  const all = ['cpu-hot', 'recursion', 'deps', 'ts-esbuild-inline', 'ts-esbuild-external', 'ts-tsc', 'ts-jsdebug'];

  for (const name of all) {
    it(`${name}: times are consistent (Σ self = duration = root total; total ≥ self) and match a naive reference`, async () => {
      const model = await load(name);
      const { nodes } = model;
      const reference = referenceSelfById(readFixture(name));
      let sum = 0;
      for (let i = 0; i < model.nodeCount; i++) {
        sum += nodes.selfUs[i];
        close(nodes.selfUs[i], reference.get(nodes.id[i]) ?? 0, `self of node ${nodes.id[i]}`);
        assert.ok(nodes.totalUs[i] >= nodes.selfUs[i]);
        if (nodes.parent[i] >= 0) assert.ok(nodes.totalUs[nodes.parent[i]] >= nodes.totalUs[i]);
      }
      close(sum, model.durationUs, 'Σ node self');
      close(nodes.totalUs[model.rootIndex], model.durationUs, 'root total');
      close(model.functionSelfUs.reduce((a, b) => a + b, 0), model.durationUs, 'Σ function self');
      for (let f = 0; f < model.functions.length; f++) {
        assert.ok(model.functionTotalUs[f] >= model.functionSelfUs[f] - 1e-6, model.functions[f].name);
        assert.ok(model.functionTotalUs[f] <= model.durationUs + 1e-6, model.functions[f].name);
      }
      assert.ok(model.durationUs > 300_000, 'the fixture programs run for more than 0.3 s');
      assert.equal(model.sampleCount, JSON.parse(readFixture(name)).samples.length);
    });
  }

  it('cpu-hot: hotLoop ranks first among user code, at its declaration (1-based), with most of the time', async () => {
    const model = await load('cpu-hot');
    const user = rankHotspots(model, { limit: 50 }).filter((h) => h.category === 'user');
    const top = user[0];
    assert.equal(top.function, 'hotLoop');
    assert.equal(top.file, '/hotpath-fixtures/cpu-hot.js');
    assert.equal(top.line, lineMatching('cpu-hot.js', /function hotLoop\(/));
    assert.equal(top.column, declColumn('cpu-hot.js', 'hotLoop'));
    assert.ok(top.selfPct > 60 && top.selfPct <= 100, `hotLoop self ${top.selfPct}%`);
    assert.ok(top.totalPct >= top.selfPct);
    assert.equal(top.userCaller, null, 'user hotspots have no userCaller');
    assert.ok(user.some((h) => h.function === 'warmLoop' && h.selfMs < top.selfMs));
  });

  it('cpu-hot: the hottest line is the marked loop body, 1-based, in hotLoop', async () => {
    const model = await load('cpu-hot');
    const [first] = rankLines(model, { limit: 5 });
    assert.deepEqual(
      { file: first.file, line: first.line, function: first.function, maybeInlined: first.maybeInlined },
      { file: '/hotpath-fixtures/cpu-hot.js', line: markerLine('cpu-hot.js', '@hot-line'), function: 'hotLoop', maybeInlined: false },
    );
    assert.ok(first.selfPct > 50, `hot line ${first.selfPct}%`);
    const hot = functionNamed(model, 'hotLoop');
    assert.ok(first.selfMs <= model.functionSelfUs[hot.index] / 1000 + 0.01, 'a line never exceeds its function');
  });

  it('per-line time is node self × ticks / hitCount, keyed by the node\'s script and 1-based line', async () => {
    const text = readFixture('deps');
    const model = await load('deps');
    const self = referenceSelfById(text);
    const expected = new Map<string, number>();
    for (const n of JSON.parse(text).nodes as { id: number; hitCount: number; callFrame: { url: string }; positionTicks?: { line: number; ticks: number }[] }[]) {
      for (const t of n.positionTicks ?? []) {
        const key = `${n.callFrame.url}:${t.line}`;
        expected.set(key, (expected.get(key) ?? 0) + ((self.get(n.id) ?? 0) * t.ticks) / n.hitCount);
      }
    }
    const actual = new Map<string, number>();
    for (let e = 0; e < model.lines.count; e++) {
      const key = `${model.functions[model.lines.func[e]].url}:${model.lines.line[e]}`;
      actual.set(key, (actual.get(key) ?? 0) + model.lines.selfUs[e]);
    }
    for (const [key, us] of expected) if (us > 0) close(actual.get(key) ?? 0, us, key);
    assert.equal([...actual.values()].filter((v) => v > 0).length, [...expected.values()].filter((v) => v > 0).length);
  });

  it('recursion: fib\'s total counts each recursive subtree once', async () => {
    const model = await load('recursion');
    const fib = functionNamed(model, 'fib');
    const { nodes } = model;
    let outermost = 0;
    let naive = 0;
    let fibNodes = 0;
    for (let i = 0; i < model.nodeCount; i++) {
      if (nodes.func[i] !== fib.index) continue;
      fibNodes++;
      naive += nodes.totalUs[i];
      let p = nodes.parent[i];
      while (p >= 0 && nodes.func[p] !== fib.index) p = nodes.parent[p];
      if (p < 0) outermost += nodes.totalUs[i];
    }
    assert.ok(fibNodes > 5, `fib recursed through ${fibNodes} nodes`);
    close(model.functionTotalUs[fib.index], outermost, 'fib total');
    assert.ok(naive > 2 * model.functionTotalUs[fib.index], 'summing every level would count time several times over');
    assert.ok(model.functionTotalUs[fib.index] <= model.durationUs);
    const [top] = rankHotspots(model, { limit: 1 });
    assert.equal(top.function, 'fib');
    assert.ok(top.totalPct <= 100 && top.totalPct >= top.selfPct);
  });

  it('deps: dependency hotspots carry their package (plain and @scope) and the user function that calls them', async () => {
    const model = await load('deps');
    const hotspots = rankHotspots(model, { limit: 30 });
    const crunch = hotspots.find((h) => h.function === 'crunch')!;
    assert.equal(crunch.category, 'dependency');
    assert.equal(crunch.package, 'fake-dep');
    assert.equal(crunch.file, '/hotpath-fixtures/node_modules/fake-dep/index.js');
    assert.deepEqual(crunch.userCaller, { function: 'useDep', file: '/hotpath-fixtures/deps.js', line: lineMatching('deps.js', /function useDep\(/) });
    const digest = hotspots.find((h) => h.function === 'digest')!;
    assert.equal(digest.package, '@fixture/scoped-dep');
    assert.equal(digest.userCaller?.function, 'useScoped');
    assert.ok(rankLines(model, { limit: 10 }).some((l) => l.file.endsWith('fake-dep/index.js') && l.line === markerLine('fake-packages/fake-dep/index.js', '@dep-line')));
  });

  it('deps: a native (regex) hotspot is attributed to the user function most of its time runs under', async () => {
    const model = await load('deps');
    const regex = rankHotspots(model, { limit: 30 }).find((h) => h.function === 'RegExp: \\d+')!;
    assert.equal(regex.category, 'native');
    assert.equal(regex.file, '');
    assert.equal(regex.line, null);
    assert.equal(regex.userCaller?.function, 'heavyCaller', 'heavyCaller runs the regex 3× as often as lightCaller');
    assert.equal(regex.userCaller?.line, lineMatching('deps.js', /function heavyCaller\(/));
  });

  it('deps: GC is a hotspot without a user caller; idle, program and root never rank', async () => {
    const model = await load('deps');
    const hotspots = rankHotspots(model, { limit: 1000 });
    const gc = hotspots.find((h) => h.category === 'gc')!;
    assert.equal(gc.function, '(garbage collector)');
    assert.equal(gc.userCaller, null);
    close(gc.selfMs, Math.round(model.gcUs / 10) / 100, 'gc');
    assert.ok(!hotspots.some((h) => ['idle', 'program', 'root'].includes(h.category)));
    assert.ok(hotspots.every((h, i) => h.rank === i + 1 && (i === 0 || hotspots[i - 1].selfMs >= h.selfMs)));
    assert.ok(hotspots.some((h) => h.category === 'node' && h.file.startsWith('node:')));
    for (const f of model.functions) if (f.category === 'user') assert.ok(!f.url.includes('node_modules'));
  });

  it('buildProfileModel on a string or bytes equals loadProfile on the file', async () => {
    const fromFile = await load('cpu-hot');
    const text = readFixture('cpu-hot');
    for (const model of [buildProfileModel(text), buildProfileModel(new Uint8Array(Buffer.from(text)))]) {
      assert.equal(model.durationUs, fromFile.durationUs);
      assert.deepEqual(rankHotspots(model), rankHotspots(fromFile));
      assert.deepEqual(rankLines(model), rankLines(fromFile));
    }
  });

  it('labels the thread from a --cpu-prof file name unless told', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-thread-'));
    try {
      const main = path.join(dir, 'CPU.20240101.120000.4242.0.001.cpuprofile');
      const worker = path.join(dir, 'CPU.20240101.120000.4242.3.002.cpuprofile');
      fs.copyFileSync(fixture('cpu-hot'), main);
      fs.copyFileSync(fixture('cpu-hot'), worker);
      assert.equal((await loadProfile(main, { sourceMaps: false })).thread, 'main');
      assert.equal((await loadProfile(worker, { sourceMaps: false })).thread, 'worker 3');
      assert.equal((await loadProfile(worker, { sourceMaps: false, thread: 'api' })).thread, 'api');
      assert.equal((await load('cpu-hot')).thread, undefined);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('profile model: exact numbers on a hand-made profile', () => {
  const cf = (name: string, url = '', line = -1, col = -1) => ({ functionName: name, scriptId: url ? '7' : '0', url, lineNumber: line, columnNumber: col });
  const APP = 'file:///app/main.js';
  // (root) ─┬ (program)   (idle)   (garbage collector)
  //         └ main ─┬ f ── g ── f      (f recursion through g)
  //                 └ RegExp: x
  const text = JSON.stringify({
    nodes: [
      { id: 1, callFrame: cf('(root)'), hitCount: 0, children: [2, 3, 4, 9] },
      { id: 2, callFrame: cf('(program)'), hitCount: 1 },
      { id: 3, callFrame: cf('(idle)'), hitCount: 1 },
      { id: 4, callFrame: cf('main', APP, 0, 0), hitCount: 1, children: [5, 8], positionTicks: [{ line: 40, ticks: 1 }] },
      { id: 5, callFrame: cf('f', APP, 9, 10), hitCount: 2, children: [6], positionTicks: [{ line: 11, ticks: 1 }, { line: 3, ticks: 1 }] },
      { id: 6, callFrame: cf('g', APP, 19, 10), hitCount: 0, children: [7] },
      { id: 7, callFrame: cf('f', APP, 9, 10), hitCount: 1, positionTicks: [{ line: 12, ticks: 1 }] },
      { id: 8, callFrame: cf('RegExp: x'), hitCount: 1 },
      { id: 9, callFrame: cf('(garbage collector)'), hitCount: 1 },
    ],
    startTime: 1000,
    endTime: 1400,
    // arrival times 1100 1110 1130 1160 1200 1250 1310 1380; each sample lasts until the next (last: endTime)
    samples: [5, 5, 7, 8, 3, 2, 9, 4],
    timeDeltas: [100, 10, 20, 30, 40, 50, 60, 70],
  });
  let model: ProfileModel;
  before(() => {
    model = buildProfileModel(text);
  });
  const fn = (name: string) => functionNamed(model, name).index;
  const nodeIndex = (id: number) => model.nodes.id.indexOf(id);

  it('self time per node comes from timeDeltas (gap to the next sample; the last runs to endTime)', () => {
    const self = Object.fromEntries([1, 2, 3, 4, 5, 6, 7, 8, 9].map((id) => [id, model.nodes.selfUs[nodeIndex(id)]]));
    assert.deepEqual(self, { 1: 0, 2: 60, 3: 50, 4: 20, 5: 30, 6: 0, 7: 30, 8: 40, 9: 70 });
    assert.equal(model.durationUs, 300);
    assert.deepEqual([model.idleUs, model.programUs, model.gcUs], [50, 60, 70]);
    const total = Object.fromEntries([1, 4, 5, 6, 7].map((id) => [id, model.nodes.totalUs[nodeIndex(id)]]));
    assert.deepEqual(total, { 1: 300, 4: 120, 5: 60, 6: 30, 7: 30 });
  });

  it('merges nodes into functions; recursion through another function counts once', () => {
    assert.equal(model.functions.filter((f) => f.name === 'f').length, 1);
    assert.equal(model.functionSelfUs[fn('f')], 60);
    assert.equal(model.functionTotalUs[fn('f')], 60, 'the inner f is inside the outer f: not added again (naive: 90)');
    assert.equal(model.functionTotalUs[fn('g')], 30);
    assert.equal(model.functionTotalUs[fn('main')], 120);
    assert.deepEqual({ line: model.functions[fn('f')].line, column: model.functions[fn('f')].column }, { line: 10, column: 11 });
  });

  it('ranks hotspots by self time with percentages of the duration and user callers', () => {
    assert.deepEqual(rankHotspots(model), [
      { rank: 1, function: '(garbage collector)', file: '', line: null, column: null, selfMs: 0.07, selfPct: 23.33, totalMs: 0.07, totalPct: 23.33, category: 'gc', package: null, userCaller: null },
      { rank: 2, function: 'f', file: '/app/main.js', line: 10, column: 11, selfMs: 0.06, selfPct: 20, totalMs: 0.06, totalPct: 20, category: 'user', package: null, userCaller: null },
      { rank: 3, function: 'RegExp: x', file: '', line: null, column: null, selfMs: 0.04, selfPct: 13.33, totalMs: 0.04, totalPct: 13.33, category: 'native', package: null, userCaller: { function: 'main', file: '/app/main.js', line: 1 } },
      { rank: 4, function: 'main', file: '/app/main.js', line: 1, column: 1, selfMs: 0.02, selfPct: 6.67, totalMs: 0.12, totalPct: 40, category: 'user', package: null, userCaller: null },
    ]);
    assert.equal(rankHotspots(model, { limit: 2 }).length, 2);
  });

  it('splits node self time over lines by ticks and flags lines before the declaration as maybe inlined', () => {
    assert.deepEqual(rankLines(model), [
      { file: '/app/main.js', line: 12, selfMs: 0.03, selfPct: 10, function: 'f', maybeInlined: false },
      { file: '/app/main.js', line: 40, selfMs: 0.02, selfPct: 6.67, function: 'main', maybeInlined: false },
      // Line 3 lies before f (line 10): the nearest function declared above it, main (line 1), is named.
      { file: '/app/main.js', line: 3, selfMs: 0.015, selfPct: 5, function: 'f', maybeInlined: true, inlinedFunction: 'main' },
      { file: '/app/main.js', line: 11, selfMs: 0.015, selfPct: 5, function: 'f', maybeInlined: false },
    ].map((r) => ({ ...r, selfMs: Math.round(r.selfMs * 100) / 100 })));
  });

  it('never assigns more time to lines than a node has when ticks and hitCount disagree', () => {
    const odd = JSON.parse(text);
    odd.nodes[3].hitCount = 4; // main: 1 tick of 4 hits → a quarter of its 20 µs has a known line
    odd.nodes[4].hitCount = 1; // f: 2 ticks but hitCount 1 → split by the tick sum, not doubled
    odd.nodes[6].hitCount = 0; // inner f: 1 tick, hitCount 0 → all of it goes to the one line
    const m = buildProfileModel(JSON.stringify(odd));
    const byLine = (line: number) => {
      let us = 0;
      for (let e = 0; e < m.lines.count; e++) if (m.lines.line[e] === line) us += m.lines.selfUs[e];
      return us;
    };
    assert.deepEqual([byLine(40), byLine(11), byLine(3), byLine(12)], [5, 15, 15, 30]);
  });

  it('picks the user caller with the most time when a native runs under several', () => {
    const p = {
      nodes: [
        { id: 1, callFrame: cf('(root)'), children: [2, 3] },
        { id: 2, callFrame: cf('light', APP, 1, 0), children: [4] },
        { id: 3, callFrame: cf('heavy', APP, 5, 0), children: [5] },
        { id: 4, callFrame: cf('dep', 'file:///app/node_modules/x/i.js', 0, 0), children: [6] },
        { id: 5, callFrame: cf('RegExp: y') },
        { id: 6, callFrame: cf('RegExp: y') },
      ],
      startTime: 0,
      endTime: 100,
      samples: [6, 5, 5, 5],
      timeDeltas: [0, 10, 10, 10],
    };
    const m = buildProfileModel(JSON.stringify(p));
    const hot = rankHotspots(m);
    assert.equal(hot.find((h) => h.function === 'RegExp: y')?.userCaller?.function, 'heavy');
    assert.equal(hot.find((h) => h.function === 'RegExp: y')?.selfMs, 0.1);
    assert.equal(hot.find((h) => h.function === 'dep'), undefined, 'no self time, not a hotspot');
  });

  it('accepts the trace-style `parent` field instead of `children`', () => {
    const p = JSON.parse(text);
    for (const n of p.nodes) delete n.children;
    const parents: Record<number, number> = { 2: 1, 3: 1, 4: 1, 9: 1, 5: 4, 8: 4, 6: 5, 7: 6 };
    for (const n of p.nodes) if (parents[n.id]) n.parent = parents[n.id];
    const m = buildProfileModel(JSON.stringify(p));
    assert.deepEqual(rankHotspots(m), rankHotspots(model));
  });

  it('handles a profile without samples (warning, no division by zero)', () => {
    const p = JSON.parse(text);
    p.samples = [];
    p.timeDeltas = [];
    const m = buildProfileModel(JSON.stringify(p));
    assert.equal(m.durationUs, 0);
    assert.deepEqual(rankHotspots(m), []);
    assert.deepEqual(m.warnings.map((w) => w.code), ['PROFILE_EMPTY']);
  });

  it('warns when most busy time sits on a module-loader line (profiling started late, v8-signals §1.6.3)', () => {
    const p = {
      nodes: [
        { id: 1, callFrame: cf('(root)'), children: [2] },
        { id: 2, callFrame: cf('Module._compile', 'node:internal/modules/cjs/loader', 1400, 30), hitCount: 9, positionTicks: [{ line: 1522, ticks: 9 }] },
      ],
      startTime: 0,
      endTime: 1000,
      samples: [2, 2],
      timeDeltas: [0, 100],
    };
    const m = buildProfileModel(JSON.stringify(p));
    assert.deepEqual(m.warnings.map((w) => w.code), ['PROFILE_LATE_START']);
    assert.match(m.warnings[0].message, /node:internal\/modules\/cjs\/loader line 1522/);
    assert.deepEqual(model.warnings, []);
  });
});
