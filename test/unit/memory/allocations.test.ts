// Allocation profiles as models in bytes: the conversion, sites by function, and the lines of user code
// the bytes belong to (a function's own allocations on its line, a dependency's on the user line that
// called it). Sources are the orders-api fixture's real files.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { attributeProfile } from '../../../src/core/attribution';
import { buildAllocationModel, heapProfileAsCpuProfile, totalBytes, type SamplingHeapProfile, type SamplingHeapProfileNode } from '../../../src/core/memory/heapProfile';
import { allocationLines, allocationSites, ownedSites } from '../../../src/core/memory/sites';
import { allocationFlamePayload } from '../../../src/core/memory/flame';
import { gcFromMonitor } from '../../../src/core/memory/gc';

const APP = path.resolve(__dirname, '../../fixtures/npm-apps/orders-api');
/** 0-based line of the first line with `text`, and the column of the `(` at or after `from` on it (V8's function position). */
const at = (rel: string, text: string, from = text) => {
  const lines = fs.readFileSync(path.join(APP, rel), 'utf8').split('\n');
  const i = lines.findIndex((l) => l.includes(text));
  if (i < 0) throw new Error(`${text} not in ${rel}`);
  return { line: i, column: lines[i].indexOf('(', lines[i].indexOf(from)) };
};
let nextId = 1;
function node(name: string, url: string, pos: { line: number; column: number }, selfSize: number, children: SamplingHeapProfileNode[] = []): SamplingHeapProfileNode {
  return { id: nextId++, callFrame: { functionName: name, scriptId: '1', url, lineNumber: pos.line, columnNumber: pos.column }, selfSize, children };
}
const file = (rel: string) => pathToFileURL(path.join(APP, rel)).href;

/** The /catalog handler: catalogPage allocates 60 KB, express's res.json 6 KB (called on the handler's res.json line). */
function catalogProfile(withSamples: boolean): SamplingHeapProfile {
  nextId = 1;
  const catalog = node('catalogPage', file('lib/catalog.js'), at('lib/catalog.js', 'function catalogPage'), 60_000);
  const json = node('json', pathToFileURL(path.join(APP, 'node_modules/express/lib/response.js')).href, { line: 249, column: 32 }, 6_000);
  const handler = node('', file('server.js'), at('server.js', "app.get('/catalog'", '(req'), 2_000, [catalog, json]);
  const timer = node('listOnTimeout', 'node:internal/timers', { line: 500, column: 24 }, 1_000);
  const head = node('(root)', '', { line: -1, column: -1 }, 0, [handler, timer]);
  const samples = withSamples
    ? [{ nodeId: catalog.id, size: 30_000, ordinal: 3 }, { nodeId: handler.id, size: 2_000, ordinal: 1 }, { nodeId: catalog.id, size: 30_000, ordinal: 2 }, { nodeId: json.id, size: 6_000, ordinal: 4 }, { nodeId: timer.id, size: 1_000, ordinal: 5 }]
    : [];
  return { head, samples };
}

describe('allocation profiles (V8 sampling heap profiler) as models in bytes', () => {
  it('keeps every byte: the model\'s duration is the total, each function\'s self time its bytes', async () => {
    for (const withSamples of [true, false]) {
      const profile = catalogProfile(withSamples);
      assert.equal(totalBytes(profile), 69_000);
      const model = await buildAllocationModel(profile, { sourceName: 'catalog.heapprofile' });
      assert.equal(model.durationUs, 69_000, `with samples: ${withSamples}`);
      const bytesOf = (name: string) => model.functions.reduce((s, f, i) => s + (f.name === name ? model.functionSelfUs[i] : 0), 0);
      assert.equal(bytesOf('catalogPage'), 60_000);
      assert.equal(bytesOf('json'), 6_000);
    }
  });

  it('orders samples by allocation (the flame chart\'s axis), and falls back to nodes when samples do not add up', () => {
    const doc = JSON.parse(heapProfileAsCpuProfile(catalogProfile(true)));
    assert.equal(doc.endTime, 69_000);
    // ordinal order: handler (2 KB), catalog, catalog, json, timer; sample i lasts timeDeltas[i + 1].
    assert.deepEqual(doc.timeDeltas, [0, 2_000, 30_000, 30_000, 6_000]);
    const partial = catalogProfile(true);
    partial.samples = partial.samples!.slice(0, 2);
    const fallback = JSON.parse(heapProfileAsCpuProfile(partial));
    assert.equal(fallback.endTime, 69_000);
  });

  it('ranks sites by bytes with bytes per request, category and package', async () => {
    const model = await buildAllocationModel(catalogProfile(true), { sourceName: 'catalog.heapprofile' });
    const attr = await attributeProfile(model);
    const sites = allocationSites(model, attr, 100);
    assert.deepEqual(sites.map((s) => s.function), ['catalogPage', 'json', '(anonymous)', 'listOnTimeout']);
    assert.equal(sites[0].file, path.join(APP, 'lib/catalog.js'));
    assert.equal(sites[0].line, at('lib/catalog.js', 'function catalogPage').line + 1);
    assert.equal(sites[0].bytesPerRequest, 600);
    assert.ok(Math.abs(sites[0].pct - 86.96) < 0.01, String(sites[0].pct));
    assert.equal(sites[1].category, 'dependency');
    assert.equal(sites[1].package, 'express');
  });

  it('puts bytes on lines the user can change: a function\'s own on its line, a dependency\'s on the calling line', async () => {
    const model = await buildAllocationModel(catalogProfile(true), { sourceName: 'catalog.heapprofile' });
    const attr = await attributeProfile(model);
    const lines = allocationLines(model, attr, 100);
    const jsonLine = at('server.js', 'res.json({ count').line + 1;
    const call = lines.find((l) => l.kind === 'call');
    assert.ok(call, JSON.stringify(lines));
    assert.equal(call.file, path.join(APP, 'server.js'));
    assert.equal(call.line, jsonLine);
    assert.equal(call.bytes, 6_000);
    assert.equal(call.bytesPerRequest, 60);
    assert.equal(call.calls[0].function, 'json');
    const own = lines.find((l) => l.function === 'catalogPage');
    assert.equal(own?.kind, 'function');
    // The leak check's view: the same lines, plus code no user frame called (a timer in Node) as its own site.
    const owned = ownedSites(model, attr);
    assert.equal(owned[0].function, 'catalogPage');
    assert.ok(owned.some((s) => s.category === 'user' && s.line === jsonLine && s.bytes === 6_000));
    assert.ok(owned.some((s) => s.category === 'node' && s.function === 'listOnTimeout'));
    assert.ok(!owned.some((s) => s.function === 'json'), 'express\'s bytes are on the user line that called it');
  });

  it('draws as a flamegraph in bytes, per request', async () => {
    const model = await buildAllocationModel(catalogProfile(true), { sourceName: 'catalog.heapprofile' });
    const payload = allocationFlamePayload(model, { title: 'catalog (allocations)', requests: 100 });
    assert.equal(payload.meta.unit, 'bytes');
    assert.equal(payload.meta.requests, 100);
    assert.equal(payload.meta.durationUs, 69_000);
  });
});

describe('GC pauses from the collections the loop monitor recorded', () => {
  it('gives the share of the window and the pause distribution, by kind', () => {
    const entries = [0.4, 1, 0.6, 1, 12, 4, 0.5, 1, 2, 8];
    const gc = gcFromMonitor({ delay: { p50: 0, p90: 0, p99: 0, max: 0, mean: 0, count: 0 }, utilization: 0.5, windowMs: 1000, gc: { count: 5, totalMs: 15.5, entries }, episodes: [], episodeCount: 0, startUs: 0, stopUs: 1e6 });
    assert.ok(gc);
    assert.equal(gc.gcPct, 1.55);
    assert.deepEqual(gc.gcPauses, { count: 5, p50Ms: 0.6, p99Ms: 12, maxMs: 12, totalMs: 15.5, byKind: { minor: 3, major: 1, incremental: 1 } });
  });

  it('is null when the monitor did not record pauses (left to the CPU profile\'s GC samples)', () => {
    assert.equal(gcFromMonitor({ delay: { p50: 0, p90: 0, p99: 0, max: 0, mean: 0, count: 0 }, utilization: 0.5, windowMs: 1000, gc: null, episodes: [], episodeCount: 0, startUs: 0, stopUs: 1e6 }), null);
  });
});
