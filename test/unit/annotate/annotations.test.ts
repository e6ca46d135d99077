// Per-file annotations (CodeLens + hot lines) from real recorded profiles.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { buildAnnotations } from '../../../src/core/annotate';
import { buildProfileModel, loadProfile } from '../../../src/core/profile';
import { attributeProfile } from '../../../src/core/attribution';

const PROFILES = path.resolve(__dirname, '../../fixtures/profiles');

describe('annotations', () => {
  it('hot functions sit on their declaration lines; hot lines carry share, time, samples and callers', async () => {
    const model = await loadProfile(path.join(PROFILES, 'cpu-hot.cpuprofile'), { sourceMaps: false });
    const a = buildAnnotations(model, await attributeProfile(model), { profilePath: 'cpu-hot.cpuprofile' });
    const file = a.files.get('/hotpath-fixtures/cpu-hot.js');
    assert.ok(file, `files: ${[...a.files.keys()]}`);
    const hot = file.functions.find((f) => f.function === 'hotLoop');
    assert.ok(hot);
    assert.equal(hot.line, 6);
    assert.equal(hot.rank, 1);
    assert.ok(hot.selfPct > 90 && hot.totalPct >= hot.selfPct, JSON.stringify(hot));
    assert.deepEqual(hot.callers.map((c) => c.function), ['(anonymous)']);
    assert.ok(hot.callers[0].sharePct > 99);
    const line9 = file.lines.find((l) => l.line === 9);
    assert.ok(line9);
    assert.equal(line9.function, 'hotLoop');
    assert.ok(line9.selfPct > 90);
    // ~0.2 ms sampling: hundreds of samples for ~800 ms; the estimate must agree with time / interval.
    const interval = model.durationUs / model.sampleCount;
    assert.ok(Math.abs(line9.samples - (line9.selfMs * 1000) / interval) <= 1, `${line9.samples}`);
    // Node internals and natives never get CodeLens: users cannot edit them.
    assert.ok([...a.files.keys()].every((f) => !f.startsWith('node:')));
  });

  it('respects limits and thresholds', async () => {
    const model = await loadProfile(path.join(PROFILES, 'cpu-hot.cpuprofile'), { sourceMaps: false });
    const a = buildAnnotations(model, await attributeProfile(model), { profilePath: 'p', maxFunctions: 1, minLinePct: 50 });
    const all = [...a.files.values()];
    assert.equal(all.flatMap((f) => f.functions).length, 1);
    assert.deepEqual(all.flatMap((f) => f.lines).map((l) => l.line), [9]);
  });

  it('recursion: callers exclude the function itself', async () => {
    const model = await loadProfile(path.join(PROFILES, 'recursion.cpuprofile'), { sourceMaps: false });
    const a = buildAnnotations(model, await attributeProfile(model), { profilePath: 'p' });
    const functions = [...a.files.values()].flatMap((x) => x.functions);
    assert.ok(functions.some((f) => f.callers.length > 0), 'the recursive function has a (non-recursive) caller');
    for (const f of functions) {
      assert.ok(f.callers.every((c) => c.function !== f.function || c.line !== f.line), `${f.function} lists itself as caller`);
      const sum = f.callers.reduce((s, c) => s + c.sharePct, 0);
      assert.ok(sum <= 100.5, `${f.function}: callers sum to ${sum}%`);
    }
  });

  it('a line label needs 0.1% of the profile and at least 5 samples\' worth of time', async () => {
    // 200 samples of 1 ms: `rare` holds 3 of them (1.5%, well over 0.1%), `often` 197.
    const frame = (name: string, line: number) => ({ functionName: name, scriptId: '1', url: 'file:///hotpath-no-such-dir/app.js', lineNumber: line - 1, columnNumber: 10 });
    const model = buildProfileModel(JSON.stringify({
      nodes: [
        { id: 1, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, hitCount: 0, children: [2, 3] },
        { id: 2, callFrame: frame('often', 1), hitCount: 197, positionTicks: [{ line: 2, ticks: 197 }] },
        { id: 3, callFrame: frame('rare', 6), hitCount: 3, positionTicks: [{ line: 7, ticks: 3 }] },
      ],
      startTime: 0, endTime: 200_000, samples: [...Array(100).fill(2), 3, 3, 3, ...Array(97).fill(2)], timeDeltas: Array(200).fill(1000),
    }), { sourceMaps: false });
    const attribution = await attributeProfile(model);
    const linesOf = (options: { minLineSamples?: number }) => [...buildAnnotations(model, attribution, { profilePath: 'p', ...options }).files.values()].flatMap((f) => f.lines).map((l) => `${l.function}:${l.line}`).sort();
    assert.deepEqual(linesOf({}), ['often:2'], 'three samples are not enough to paint');
    assert.deepEqual(linesOf({ minLineSamples: 3 }), ['often:2', 'rare:7']);
  });
});
