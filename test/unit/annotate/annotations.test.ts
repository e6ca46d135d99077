// Per-file annotations (CodeLens + hot lines) from real recorded profiles.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { buildAnnotations } from '../../../src/core/annotate';
import { loadProfile } from '../../../src/core/profile';
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
});
