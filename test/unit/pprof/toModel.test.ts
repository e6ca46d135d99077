/**
 * pprof → the profile model: producers' naming conventions, the sample type shown, labels, line-level
 * against function-level profiles, and call-site lines kept for attribution.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { attributeProfile, attributedLines, rankAttributedHotspots } from '../../../src/core/attribution';
import { buildAnnotations } from '../../../src/core/annotate';
import { loadProfile } from '../../../src/core/profile';
import { frameName, pyroscopeName } from '../../../src/core/pprof/names';
import { loadEditorProfile } from '../../../src/core/workflow/editorProfile';
import { codeLensText } from '../../../src/vscode/annotations/format';
import { gzipPprof, type ProfileSpec } from '../../helpers/pprofBuilder';

describe('pprof → model', function () {
  this.timeout(30_000);
  let dir: string;
  before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-pprof-model-')); });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const load = (name: string, spec: ProfileSpec, options = {}) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, gzipPprof(spec));
    return loadProfile(file, { sourceMaps: false, pathMap: { roots: [dir] }, ...options });
  };

  it('producer names: Pyroscope `file:name:line`, Datadog `(anonymous:L#:C#)`, Garbage Collection under "Node.js"', () => {
    assert.deepEqual(pyroscopeName('./src/orders.js:listOrders:12', '/app/src/orders.js'), { name: 'listOrders', line: 12 });
    assert.deepEqual(pyroscopeName('/app/a:b.js:x:3', '/app/a:b.js'), { name: 'x', line: 3 });
    assert.deepEqual(pyroscopeName(':JSON.parse:0', ''), { name: 'JSON.parse', line: 0 });
    assert.equal(pyroscopeName('Module._load', 'node:internal/modules/cjs/loader'), null);
    assert.deepEqual(frameName('./x.js:(anonymous:L#36:C#19):36', '/srv/x.js', false), { name: '', nameLine: 36, nameColumn: 19 });
    assert.deepEqual(frameName('Garbage Collection', '', false), { name: '(garbage collector)', nameLine: 0, nameColumn: 0, category: 'gc' });
    assert.equal(frameName('Node.js', '', true).synthetic, true);
    assert.equal(frameName('Node.js', '/srv/x.js', true).synthetic, undefined, 'only the producer\'s pseudo-frame, not a function of that name');
  });

  it('the default sample type is CPU, else wall; --sample-type picks another; samples become time through the period', async () => {
    const stack = [{ name: 'hot', file: '/srv/h.js', line: 3 }];
    const spec: ProfileSpec = { types: [['sample', 'count'], ['wall', 'nanoseconds'], ['cpu', 'nanoseconds']], samples: [{ stack, values: [4, 8_000_000, 3_000_000] }], period: ['wall', 'nanoseconds', 2_000_000] };
    const cpu = await load('types.pb.gz', spec);
    assert.equal(cpu.durationUs, 3000);
    assert.equal(cpu.origin?.sampleType?.type, 'cpu');
    assert.equal(cpu.sampleCount, 4, 'the count type gives the real number of samples');
    const wall = await load('types.pb.gz', spec, { sampleType: 'wall' });
    assert.equal(wall.durationUs, 8000);
    assert.equal(wall.origin?.sampleType?.reason, 'asked');
    const samples = await load('types.pb.gz', spec, { sampleType: 'sample' });
    assert.equal(samples.durationUs, 8000, '4 samples × the 2 ms period');
    const noCpu = await load('wall.pb.gz', { ...spec, types: [['sample', 'count'], ['wall', 'nanoseconds']], samples: [{ stack, values: [4, 8_000_000] }] });
    assert.equal(noCpu.origin?.sampleType?.type, 'wall');
  });

  it('heap types: bytes and object counts, the space type by default (as go tool pprof)', async () => {
    const spec: ProfileSpec = { types: [['inuse_objects', 'count'], ['inuse_space', 'bytes']], samples: [{ stack: [{ name: 'alloc', file: '/srv/h.js', line: 3 }], values: [12, 4096] }] };
    const space = await load('heap.pb.gz', spec);
    assert.equal(space.origin?.unit, 'bytes');
    assert.equal(space.durationUs, 4096);
    const objects = await load('heap.pb.gz', spec, { sampleType: 'inuse_objects' });
    assert.equal(objects.origin?.unit, 'objects');
    assert.equal(objects.durationUs, 12);
  });

  it('labels: --label keeps matching samples (same key: either value; different keys: both); the breakdown splits the shown value', async () => {
    const stack = [{ name: 'hot', file: '/srv/h.js', line: 3 }];
    const spec: ProfileSpec = {
      types: [['cpu', 'nanoseconds']],
      samples: [
        { stack, values: [6_000_000], labels: { 'trace endpoint': 'GET /orders', region: 'eu' } },
        { stack, values: [3_000_000], labels: { 'trace endpoint': 'GET /report', region: 'eu' } },
        { stack, values: [1_000_000], labels: { 'trace endpoint': 'GET /orders', region: 'us' } },
      ],
    };
    const all = await load('labels.pb.gz', spec);
    const endpoint = all.origin!.labels!.breakdown.find((b) => b.key === 'trace endpoint')!;
    assert.deepEqual(endpoint.values.map((v) => [v.value, v.pct]), [['GET /orders', 70], ['GET /report', 30]]);
    const orders = await load('labels.pb.gz', spec, { labels: [{ key: 'trace endpoint', value: 'GET /orders' }] });
    assert.equal(orders.durationUs, 7000);
    const both = await load('labels.pb.gz', spec, { labels: [{ key: 'trace endpoint', value: 'GET /orders' }, { key: 'region', value: 'eu' }] });
    assert.equal(both.durationUs, 6000);
    const either = await load('labels.pb.gz', spec, { labels: [{ key: 'trace endpoint', value: 'GET /orders' }, { key: 'trace endpoint', value: 'GET /report' }] });
    assert.equal(either.durationUs, 10000);
    await assert.rejects(load('labels.pb.gz', spec, { labels: [{ key: 'span', value: '1' }] }), /no sample has span=1 \(no sample carries the label "span" at all\)/);
  });

  it('a function-level profile (frames on start lines) places nothing on lines: CodeLens per function, no line heat', async () => {
    fs.writeFileSync(path.join(dir, 'fl.js'), 'function hot() {\n  let s = 0;\n  for (let i = 0; i < 1e6; i++) s += i;\n  return s;\n}\nfunction main() {\n  return hot() + hot();\n}\nmain();\n');
    const file = path.join(dir, 'fl.js');
    const hot = { name: 'hot', file, line: 1 };
    const main = { name: 'main', file, line: 6 };
    const model = await load('fl.pb.gz', { types: [['cpu', 'nanoseconds']], samples: [{ stack: [hot, main], values: [90_000_000] }, { stack: [main], values: [10_000_000] }] });
    assert.equal(model.origin?.granularity, 'functions');
    assert.equal(model.lines.count, 0, 'no line ticks from start lines');
    const attribution = await attributeProfile(model);
    assert.deepEqual(attribution.lines, [], 'no call-site lines inferred from the source either');
    const annotations = buildAnnotations(model, attribution, { profilePath: 'fl.pb.gz', hotspots: rankAttributedHotspots(model, attribution, 10) });
    const fileAnn = annotations.files.get(file)!;
    assert.deepEqual(fileAnn.functions.map((f) => [f.function, f.line]), [['hot', 1], ['main', 6]]);
    assert.deepEqual(fileAnn.lines, []);
    assert.equal(annotations.granularity, 'functions');
    assert.match(codeLensText(fileAnn.functions[0], undefined, false, true), / · function-level profile$/);
  });

  it('the editor: a heap profile gets allocation labels and a bytes flamegraph, never CPU time labels', async () => {
    fs.writeFileSync(path.join(dir, 'alloc.js'), 'function makeRows() {\n  return [];\n}\n');
    const file = path.join(dir, 'heap-editor.pb.gz');
    fs.writeFileSync(file, gzipPprof({ types: [['inuse_objects', 'count'], ['inuse_space', 'bytes']], samples: [{ stack: [{ name: 'makeRows', file: path.join(dir, 'alloc.js'), line: 1 }], values: [100, 1_000_000] }] }));
    const view = await loadEditorProfile({ file, maxFunctions: 10, pathMap: { roots: [dir] } });
    assert.equal(view.annotations.files.size, 0);
    assert.deepEqual(view.hotspots, []);
    assert.equal(view.payload.meta.unit, 'bytes');
    const allocations = view.runtime?.get(path.join(dir, 'alloc.js'))?.allocations ?? [];
    assert.deepEqual(allocations.map((a) => [a.function, a.line, a.bytes]), [['makeRows', 1, 1_000_000]]);
  });

  it('a line-level profile: leaf lines are line heat, caller lines carry the call\'s inclusive time', async () => {
    fs.writeFileSync(path.join(dir, 'll.js'), '// x\nfunction hot(n) {\n  let s = 0;\n  for (let i = 0; i < n; i++) {\n    s += Math.sqrt(i);\n  }\n  return s;\n}\nfunction main() {\n  let t = hot(1);\n  t += hot(2);\n  return t;\n}\n');
    const file = path.join(dir, 'll.js');
    const spec: ProfileSpec = {
      types: [['samples', 'count'], ['wall', 'nanoseconds']],
      samples: [
        { stack: [{ name: 'hot', file, line: 5 }, { name: 'main', file, line: 10 }], values: [60, 60_000_000] },
        { stack: [{ name: 'hot', file, line: 4 }, { name: 'main', file, line: 10 }], values: [10, 10_000_000] },
        { stack: [{ name: 'hot', file, line: 5 }, { name: 'main', file, line: 11 }], values: [30, 30_000_000] },
      ],
    };
    const model = await load('ll.pb.gz', spec);
    assert.equal(model.origin?.granularity, 'lines');
    // No start lines in the profile: the workspace source places each function (its CodeLens line).
    assert.deepEqual(model.functions.filter((f) => f.category === 'user').map((f) => [f.name, f.line]), [['main', 9], ['hot', 2]]);
    const attribution = await attributeProfile(model);
    const lines = attributedLines(model, attribution, { limit: 10 });
    const at = (l: number) => lines.find((x) => x.file === file && x.line === l);
    assert.equal(at(5)?.selfMs, 90);
    assert.equal(at(4)?.selfMs, 10);
    // Two calls of hot from main, each on its own line: the profile says which, no source search needed.
    assert.equal(at(10)?.totalMs, 70);
    assert.equal(at(11)?.totalMs, 30);
  });
});
