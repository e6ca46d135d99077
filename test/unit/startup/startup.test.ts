import { strict as assert } from 'node:assert';
import { startupAdvice, packageScriptOf } from '../../../src/core/startup/advice';
import { mergeCpuProfiles } from '../../../src/core/startup/mergeProfiles';
import { buildModuleTree, importLine } from '../../../src/core/startup/moduleTree';
import type { ModulesFile } from '../../../src/core/startup/reports';
import { madOutliers, median, needMoreRuns, summarizeRuns } from '../../../src/core/startup/runStats';
import { buildProfileModel } from '../../../src/core/profile';
import { startupUsage } from '../../../src/core/startup/usage';

describe('startup statistics', () => {
  it('mean, σ, median, min, max like hyperfine; outliers flagged by the modified z-score, not dropped', () => {
    const runs = [101, 99, 100, 102, 98, 100, 101, 99, 250, 100];
    const s = summarizeRuns(runs);
    assert.equal(s.runs, 10);
    assert.equal(s.medianMs, 100);
    assert.equal(s.minMs, 98);
    assert.equal(s.maxMs, 250);
    assert.equal(s.meanMs, 115, 'the outlier stays in the mean');
    assert.deepEqual(s.outliers.map((o) => o.run), [9]);
    assert.ok(s.outliers[0].modifiedZ > 3.5);
  });

  it('MAD of 0 (most runs identical) still sees a lone slow run; identical runs have none', () => {
    assert.deepEqual(madOutliers([100, 100, 100, 100, 100, 100, 180]).map((o) => o.run), [7]);
    assert.deepEqual(madOutliers([100, 100, 100, 100]), []);
    assert.equal(median([3, 1, 2, 4]), 2.5);
  });

  it('chooses the run count from the measured variance: at least min, until the mean is known to ±target, within max and budget', () => {
    const settings = { min: 10, max: 100, targetPct: 2, budgetMs: 60_000 };
    assert.equal(needMoreRuns([100, 100, 100], 300, settings), true, 'below min');
    assert.equal(needMoreRuns(Array.from({ length: 10 }, (_, i) => 100 + (i % 2)), 1000, settings), false, 'tight: 10 runs are enough');
    const noisy = Array.from({ length: 10 }, (_, i) => (i % 2 ? 60 : 140));
    assert.equal(needMoreRuns(noisy, 1000, settings), true, 'noisy: more runs');
    assert.equal(needMoreRuns(noisy, 59_950, settings), false, 'the budget is spent');
    assert.equal(needMoreRuns(Array.from({ length: 100 }, (_, i) => (i % 2 ? 60 : 140)), 1000, settings), false, 'max');
  });
});

/** A tiny .cpuprofile: root → main (app.js) → [work (app.js), hook (Hotpath's preload) → inner]. */
function profile(sampleIds: number[], deltas: number[], end: number, scriptId = '7') {
  const cf = (functionName: string, url: string, lineNumber: number) => ({ functionName, scriptId, url, lineNumber, columnNumber: 0 });
  return {
    nodes: [
      { id: 1, callFrame: cf('(root)', '', -1), children: [2] },
      { id: 2, callFrame: cf('main', '/app/app.js', 0), children: [3, 4] },
      { id: 3, callFrame: cf('work', '/app/app.js', 4), positionTicks: [{ line: 6, ticks: 2 }] },
      { id: 4, callFrame: cf('stop', '/opt/hotpath/dist/hotpath-startup-preload.js', 1), children: [5] },
      { id: 5, callFrame: cf('inner', 'node:fs', 1) },
    ],
    startTime: 1000, endTime: end, samples: sampleIds, timeDeltas: deltas,
  };
}

describe('merging startup profiles', () => {
  it('matches frames by name, URL and position across runs (script ids differ), keeps each sample\'s duration, drops Hotpath\'s subtrees', () => {
    const a = profile([3, 3, 5], [10, 100, 100], 1400, '7');
    const b = profile([2, 3], [10, 50], 1300, '9');
    const merged = mergeCpuProfiles([a, b], (url) => url.endsWith('hotpath-startup-preload.js'));
    assert.equal(merged.runs, 2);
    assert.equal(merged.samples, 4, 'the sample under Hotpath\'s frame is dropped');
    assert.equal(merged.droppedUs, 190, 'its duration: until endTime');
    const model = buildProfileModel(Buffer.from(JSON.stringify(merged.profile)), { sourceMaps: false, sourceName: 'merged' });
    const byName = (n: string) => model.functions.findIndex((f) => f.name === n);
    // a: work 100 + 100 µs; b: main 50, work 240 (until endTime).
    assert.equal(model.functionSelfUs[byName('work')], 440);
    assert.equal(model.functionSelfUs[byName('main')], 50);
    assert.equal(byName('stop'), -1);
    assert.equal(model.durationUs, 490);
    const work = merged.profile.nodes as Array<{ callFrame: { functionName: string }; positionTicks?: Array<{ line: number; ticks: number }> }>;
    assert.deepEqual(work.find((n) => n.callFrame.functionName === 'work')!.positionTicks, [{ line: 6, ticks: 4 }]);
  });
});

describe('the module-load tree', () => {
  const run = (rulesMs: number): ModulesFile => ({
    hookMs: 0.5,
    cjs: [
      { file: '/app/node_modules/semver/functions/valid.js', request: './functions/valid', parent: '/app/node_modules/semver/index.js', from: '/app/node_modules/semver/index.js', line: 5, startMs: 2, totalMs: 3, childMs: 0 },
      { file: '/app/node_modules/semver/index.js', request: 'semver', parent: '/app/cli.js', from: '/app/cli.js', line: 2, startMs: 1, totalMs: 10, childMs: 3 },
      { file: '/app/lib/rules.js', request: './lib/rules', parent: '/app/cli.js', from: '/app/cli.js', line: 3, startMs: 12, totalMs: rulesMs, childMs: 0 },
      { file: '/app/cli.js', request: '/app/cli.js', parent: null, from: null, line: null, startMs: 0, totalMs: 12 + rulesMs, childMs: 10 + rulesMs },
    ],
    esm: [],
  });

  it('self and total per module averaged over runs, subtree sizes, packages, the entry point', () => {
    const tree = buildModuleTree({ runs: [run(90), run(110)], cwd: '/app' });
    const [first] = tree.modules;
    assert.equal(first.file, '/app/lib/rules.js');
    assert.equal(first.selfMs, 100);
    assert.deepEqual(first.requiredFrom, { file: '/app/cli.js', line: 3 });
    assert.deepEqual(tree.modules.map((m) => m.selfMs), [...tree.modules.map((m) => m.selfMs)].sort((a, b) => b - a), 'by own time');
    const entry = tree.modules.find((m) => m.file === '/app/cli.js')!;
    assert.equal(entry.module, 'cli.js', 'the entry point by its path');
    assert.equal(entry.requiredFrom, null);
    assert.equal(entry.modules, 4);
    assert.equal(entry.totalMs, 112);
    const semver = tree.modules.find((m) => m.module === 'semver')!;
    assert.equal(semver.totalMs, 10);
    assert.equal(semver.selfMs, 7);
    assert.equal(semver.modules, 2);
    assert.deepEqual(tree.packages, [{ package: 'semver', selfMs: 10, totalMs: 10, modules: 2, requiredFrom: { file: '/app/cli.js', line: 2 } }]);
    assert.equal(tree.hookMs, 0.5);
  });

  it('ES modules: parents from the resolver, import lines from the source, evaluation time from the profile', () => {
    const esm: ModulesFile = {
      hookMs: 0, cjs: [{ file: '/app/node_modules/semver/index.js', request: '/app/node_modules/semver/index.js', parent: null, from: null, line: null, startMs: 1, totalMs: 8, childMs: 0 }],
      esm: [
        { specifier: 'file:///app/cli.mjs', parentUrl: null, url: 'file:///app/cli.mjs', format: 'module' },
        { specifier: 'semver', parentUrl: 'file:///app/cli.mjs', url: 'file:///app/node_modules/semver/index.js', format: null },
        { specifier: './lib/rules.mjs', parentUrl: 'file:///app/cli.mjs', url: 'file:///app/lib/rules.mjs', format: 'module' },
      ],
    };
    const source = "import semver from 'semver';\nimport { rules } from \"./lib/rules.mjs\";\n";
    const tree = buildModuleTree({ runs: [esm], cwd: '/app', esmSelfMs: (f) => ({ '/app/lib/rules.mjs': 50, '/app/cli.mjs': 2 } as Record<string, number>)[f], sourceOf: (f) => (f === '/app/cli.mjs' ? source : undefined) });
    const rules = tree.modules[0];
    assert.equal(rules.file, '/app/lib/rules.mjs');
    assert.deepEqual(rules.requiredFrom, { file: '/app/cli.mjs', line: 2 });
    assert.equal(rules.timing, 'sampled');
    const semver = tree.modules.find((m) => m.package === 'semver')!;
    assert.equal(semver.module, 'semver', 'the specifier, not the resolved path');
    assert.deepEqual(semver.requiredFrom, { file: '/app/cli.mjs', line: 1 });
    assert.equal(semver.parent, '/app/cli.mjs');
    const entry = tree.modules.find((m) => m.file === '/app/cli.mjs')!;
    assert.equal(entry.totalMs, 60, 'ES totals add up their first imports');
  });

  it('finds the line of an import, export-from, dynamic import or require of a specifier', () => {
    const text = "// a\nexport { x } from './x.js';\nconst y = await import('./y.js');\nconst z = require(\"z\");\nimport './side.js';\n";
    assert.equal(importLine(text, './x.js'), 2);
    assert.equal(importLine(text, './y.js'), 3);
    assert.equal(importLine(text, 'z'), 4);
    assert.equal(importLine(text, './side.js'), 5);
    assert.equal(importLine(text, './missing.js'), null);
  });
});

describe('startup advice', () => {
  const modules = buildModuleTree({
    runs: [{ hookMs: 0, esm: [], cjs: [
      { file: '/app/node_modules/heavy/index.js', request: 'heavy', parent: '/app/cli.js', from: '/app/cli.js', line: 4, startMs: 1, totalMs: 40, childMs: 0 },
      { file: '/app/node_modules/used/index.js', request: 'used', parent: '/app/cli.js', from: '/app/cli.js', line: 5, startMs: 41, totalMs: 40, childMs: 0 },
      { file: '/app/cli.js', request: 'cli.js', parent: null, from: null, line: null, startMs: 0, totalMs: 85, childMs: 80 },
    ] }], cwd: '/app',
  }).modules;
  const base = { meanMs: 120, modules, nodeVersion: 'v24.21.0', compileCache: { available: true, directory: null }, wrappers: [], launchMs: 5, command: ['node', 'cli.js'] };

  it('lazy require only where the profile saw no use after loading; the line to change', () => {
    const usage = { of: { packageMs: (n: string) => (n === 'used' ? 3 : 0), fileMs: () => 0 }, runs: 10 };
    const advice = startupAdvice({ ...base, usage });
    const lazy = advice.filter((a) => a.id === 'lazy-require');
    assert.deepEqual(lazy.map((a) => [a.file, a.line]), [['/app/cli.js', 4]]);
    assert.match(lazy[0].text, /no sampled time in its functions after it loaded/);
  });

  it('node --run for package.json scripts, with npm\'s measured time', () => {
    assert.deepEqual(packageScriptOf(['npm', 'run', 'dev']), { runner: 'npm', script: 'dev' });
    assert.deepEqual(packageScriptOf(['/usr/bin/npm', 'start']), { runner: 'npm', script: 'start' });
    assert.equal(packageScriptOf(['node', 'cli.js']), undefined);
    const advice = startupAdvice({ ...base, command: ['npm', 'start'], wrappers: ['npm'], launchMs: 180 });
    const run = advice.find((a) => a.id === 'node-run')!;
    assert.match(run.text, /node --run start/);
    assert.equal(run.savesMs, 180);
  });

  it('the compile cache: advised with the measured effect where Node has it; a newer Node where it does not; not when in use', () => {
    const many = Array.from({ length: 25 }, () => modules[0]);
    const trial = { withMs: 90, withoutMs: 120, ratio: 0.75, significant: true };
    const on = startupAdvice({ ...base, modules: many, compileCacheTrial: trial }).find((a) => a.id === 'compile-cache')!;
    assert.match(on.text, /enableCompileCache\(\)[\s\S]*120 ms → 90.0 ms/);
    assert.equal(on.savesMs, 30);
    assert.match(startupAdvice({ ...base, modules: many, nodeVersion: 'v20.20.2', compileCache: { available: false, directory: null } }).find((a) => a.id === 'compile-cache')!.text, /Node 22\.1 and later/);
    assert.equal(startupAdvice({ ...base, modules: many, compileCache: { available: true, directory: '/tmp/c' } }).find((a) => a.id === 'compile-cache'), undefined);
  });
});

describe('startup usage (what runs after a module loaded)', () => {
  it('counts a package\'s code called from outside its own loading, not its top-level work', () => {
    const cf = (functionName: string, url: string, lineNumber: number, columnNumber = 5) => ({ functionName, scriptId: '1', url, lineNumber, columnNumber });
    const raw = {
      nodes: [
        { id: 1, callFrame: cf('(root)', '', -1), children: [2] },
        { id: 2, callFrame: cf('', '/app/cli.js', 0, 0), children: [3, 5] },
        { id: 3, callFrame: cf('', '/app/node_modules/lib/index.js', 0, 0), children: [4] },
        { id: 4, callFrame: cf('init', '/app/node_modules/lib/index.js', 3) },
        { id: 5, callFrame: cf('serve', '/app/node_modules/web/index.js', 9) },
      ],
      startTime: 0, endTime: 400, samples: [4, 4, 5], timeDeltas: [0, 100, 100],
    };
    const model = buildProfileModel(Buffer.from(JSON.stringify(raw)), { sourceMaps: false, sourceName: 'u' });
    const usage = startupUsage(model, 2);
    assert.equal(usage.packageMs('lib'), 0, 'init ran while lib loaded');
    assert.equal(usage.packageMs('web'), 0.1, '200 µs over 2 starts');
  });
});
