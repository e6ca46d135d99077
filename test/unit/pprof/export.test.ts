/**
 * The model → pprof: values from the real sample durations without (idle), sample counts that add up,
 * per-line leaf locations from V8's line ticks, start lines, labels, time — read back by Hotpath's
 * decoder (the real consumer, go tool pprof, is in test/integration/pprof.test.ts).
 */
import { strict as assert } from 'node:assert';
import { gunzipSync } from 'node:zlib';
import { buildProfileModel } from '../../../src/core/profile';
import { decodePprof } from '../../../src/core/pprof/decode';
import { exportPprof } from '../../../src/core/pprof/export';
import { profileOf } from '../../hostileText';

describe('pprof export', () => {
  const cpuprofile = profileOf([
    { name: 'main', url: 'file:///srv/app/main.js', line: 3, samples: 2, children: [
      { name: 'hot', url: 'file:///srv/app/main.js', line: 10, samples: 10, positionTicks: [{ line: 11, ticks: 7 }, { line: 12, ticks: 3 }] },
    ] },
    { name: '(idle)', url: '', line: 0, samples: 5 },
    { name: '(garbage collector)', url: '', line: 0, samples: 1 },
  ]);

  it('writes cpu time without idle, samples, one location per ticked line, start lines, labels and the time', () => {
    const model = buildProfileModel(JSON.stringify(cpuprofile), { sourceName: 'x.cpuprofile' });
    const out = exportPprof(model, null, { labels: { hotpath: '0.1.0', route: 'GET /orders', empty: '' }, startedAtMs: 1_700_000_000_000 });
    const d = decodePprof(gunzipSync(out.bytes), 'export');
    const s = (i: number) => d.string(i, 'test');
    assert.deepEqual(d.sampleTypes.map((t) => `${s(t.type)}/${s(t.unit)}`), ['samples/count', 'cpu/nanoseconds']);
    assert.equal(out.idleExcludedMs, 5);
    // The first sample ends when the second arrives: 18 samples of 1 ms hold 18 ms, 5 of it idle.
    const model18 = model.durationUs / 1000;
    assert.equal(out.totalValue, (model18 - 5) * 1e6);
    let ns = 0;
    let count = 0;
    for (let i = 0; i < d.sampleCount; i++) {
      count += d.values[d.sampleValueStart[i]];
      ns += d.values[d.sampleValueStart[i] + 1];
    }
    assert.equal(ns, out.totalValue);
    assert.equal(count, out.totalSamples);
    assert.equal(count, 13, 'every non-idle sample once');
    // hot's 10 samples on its ticked lines 11 and 12, 7:3; its function starts on line 10.
    const lineOfLocation = new Map<number, { name: string; line: number; start: number }>();
    for (let l = 0; l < d.locationCount; l++) {
      const k = d.locationLineStart[l];
      const f = [...d.functionId].indexOf(d.lineFunction[k]);
      lineOfLocation.set(d.locationId[l], { name: s(d.functionName[f]), line: d.lineLine[k], start: d.functionStartLine[f] });
    }
    const leaves = new Map<string, number>();
    for (let i = 0; i < d.sampleCount; i++) {
      const leaf = lineOfLocation.get(d.locIds[d.sampleLocStart[i]])!;
      leaves.set(`${leaf.name}:${leaf.line}`, (leaves.get(`${leaf.name}:${leaf.line}`) ?? 0) + d.values[d.sampleValueStart[i]]);
    }
    assert.deepEqual(Object.fromEntries(leaves), { 'hot:11': 7, 'hot:12': 3, 'main:3': 2, '(garbage collector):0': 1 });
    assert.equal([...lineOfLocation.values()].find((x) => x.name === 'hot')!.start, 10);
    // Labels on every sample (empty ones left out); collection time in ns.
    const keys = new Set<string>();
    for (let k = 0; k < d.labelKey.length; k++) keys.add(`${s(d.labelKey[k])}=${s(d.labelStr[k])}`);
    assert.deepEqual([...keys].sort(), ['hotpath=0.1.0', 'route=GET /orders']);
    assert.equal(d.timeNanos, 1_700_000_000_000 * 1e6);
    assert.match(d.comments.map(s).join('\n'), /without \(idle\)/);
  });

  it('a heap model exports its bytes under its sample type', () => {
    const model = buildProfileModel(JSON.stringify(profileOf([{ name: 'alloc', url: 'file:///srv/a.js', line: 2, samples: 4 }])), { sourceName: 'h' });
    const out = exportPprof(model, null, { heap: { unit: 'bytes', sampleType: 'alloc_space' } });
    const d = decodePprof(gunzipSync(out.bytes), 'export');
    assert.deepEqual(d.sampleTypes.map((t) => d.string(t.type, 't')), ['samples', 'alloc_space']);
    assert.equal(out.totalValue, model.durationUs, 'bytes as they are, not ×1000');
    assert.equal(d.durationNanos, 0);
  });
});
