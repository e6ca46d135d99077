// Blocking episodes charged to lines: a time-ordered synthetic CPU profile of the orders-api fixture
// (its real sources), episodes as the loop monitor reports them, and the analysis on top.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { analyzeBlocking } from '../../../src/core/loop/blocking';
import { addBlockingLane } from '../../../src/core/loop/flameLane';
import { buildFlamePayload } from '../../../src/core/flame';
import { buildProfileModel } from '../../../src/core/profile';

const APP = path.resolve(__dirname, '../../fixtures/npm-apps/orders-api');
const text = (rel: string) => fs.readFileSync(path.join(APP, rel), 'utf8').split('\n');
/** V8's position of a function: 0-based line of `lineText`, column of the `(` at or after `from`. */
function pos(rel: string, lineText: string, from = lineText) {
  const lines = text(rel);
  const i = lines.findIndex((l) => l.includes(lineText));
  return { lineNumber: i, columnNumber: lines[i].indexOf('(', lines[i].indexOf(from)) };
}
const lineOf = (rel: string, t: string) => text(rel).findIndex((l) => l.includes(t)) + 1;

interface F { name: string; url: string; at: { lineNumber: number; columnNumber: number } }
const reportHandler: F = { name: '', url: pathToFileURL(path.join(APP, 'server.js')).href, at: pos('server.js', "app.get('/report'", '(req') };
const ordersHandler: F = { name: '', url: pathToFileURL(path.join(APP, 'server.js')).href, at: pos('server.js', "app.get('/orders'", '(req') };
const monthlyReport: F = { name: 'monthlyReport', url: pathToFileURL(path.join(APP, 'lib/report.js')).href, at: pos('lib/report.js', 'function monthlyReport') };
const pbkdf2Sync: F = { name: 'pbkdf2Sync', url: 'node:internal/crypto/pbkdf2', at: { lineNumber: 68, columnNumber: 19 } };
const idle: F = { name: '(idle)', url: '', at: { lineNumber: -1, columnNumber: -1 } };

/** Samples in time order, 1 ms apart: each a stack (outermost first) and the top frame's 1-based line. */
function profile(samples: { stack: F[]; line: number }[]) {
  const nodes: { id: number; callFrame: object; hitCount: number; children: number[]; positionTicks?: { line: number; ticks: number }[] }[] = [
    { id: 1, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, hitCount: 0, children: [] },
  ];
  const byPath = new Map<string, number>();
  const ids: number[] = [];
  for (const s of samples) {
    let parent = 1;
    let key = '';
    for (const f of s.stack) {
      key += `>${f.name}@${f.url}:${f.at.lineNumber}`;
      let id = byPath.get(key);
      if (id === undefined) {
        id = nodes.length + 1;
        byPath.set(key, id);
        nodes.push({ id, callFrame: { functionName: f.name, scriptId: '1', url: f.url, lineNumber: f.at.lineNumber, columnNumber: f.at.columnNumber }, hitCount: 0, children: [] });
        nodes[parent - 1].children.push(id);
      }
      parent = id;
    }
    const n = nodes[parent - 1];
    n.hitCount++;
    const tick = (n.positionTicks ??= []).find((t) => t.line === s.line);
    if (tick) tick.ticks++;
    else n.positionTicks.push({ line: s.line, ticks: 1 });
    ids.push(parent);
  }
  const startTime = 1_000_000;
  return buildProfileModel(JSON.stringify({ nodes, startTime, endTime: startTime + samples.length * 1000, samples: ids, timeDeltas: ids.map(() => 1000) }), { sourceName: 'synth.cpuprofile' });
}

describe('blocking episodes → the lines that held the loop', () => {
  const pbkdf2Line = lineOf('lib/report.js', 'crypto.pbkdf2Sync(');
  const ordersLine = lineOf('server.js', "res.json({ id");
  // 0–9 ms: orders; 10–49: a report (40 ms in pbkdf2Sync); 50–59 orders; 60–99: another report; 100–119: idle.
  const samples = [
    ...Array.from({ length: 10 }, () => ({ stack: [ordersHandler], line: ordersLine })),
    ...Array.from({ length: 40 }, () => ({ stack: [reportHandler, monthlyReport, pbkdf2Sync], line: 69 })),
    ...Array.from({ length: 10 }, () => ({ stack: [ordersHandler], line: ordersLine })),
    ...Array.from({ length: 40 }, () => ({ stack: [reportHandler, monthlyReport, pbkdf2Sync], line: 69 })),
    ...Array.from({ length: 20 }, () => ({ stack: [idle], line: 0 })),
  ];
  const model = profile(samples);
  // Sample i arrives at startTime + (i + 1) ms. Episodes as the monitor reports them, plus one during
  // which the profiler saw no samples at all (the process did not run).
  const t = (ms: number) => 1_000_000 + ms * 1000;
  const episodes = [t(10.5), t(50.5), t(60.5), t(100.5), t(110.5), t(140.5)];

  it('charges the work in a callee to the user line that called it, with the episodes it ran in', async () => {
    const r = await analyzeBlocking(model, episodes, { thresholdMs: 20 });
    assert.equal(r.episodes, 3);
    const top = r.blockingLines[0];
    assert.equal(top.file, path.join(APP, 'lib/report.js'));
    assert.equal(top.line, pbkdf2Line);
    assert.equal(top.function, 'monthlyReport');
    assert.equal(top.blockedMs, 80);
    assert.equal(top.episodes, 2);
    assert.deepEqual(top.episodeMs, [40, 40]);
    assert.equal(top.medianEpisodeMs, 40);
    assert.ok(!r.blockingLines.some((l) => l.line === ordersLine && l.file.endsWith('server.js')), 'the orders handler ran outside the episodes');
  });

  it('names each long task by its culprit, and an episode without CPU as such', async () => {
    const r = await analyzeBlocking(model, episodes, { thresholdMs: 20 });
    assert.deepEqual(r.longTasks.map((x) => x.function), ['monthlyReport', 'monthlyReport', '(the process hardly ran: no CPU for most of this turn)']);
    assert.equal(r.longTasks[0].line, pbkdf2Line);
    assert.equal(r.longTasks[0].startMs, 10.5);
    assert.equal(r.longTasks[0].durationMs, 40);
    assert.equal(r.longTasks[0].cpuMs, 40);
    assert.equal(r.longTasks[2].cpuMs, 0);
    assert.equal(r.blockedMs, 110);
  });

  it('draws the episodes as a lane over the flame chart, on its time axis', async () => {
    const r = await analyzeBlocking(model, episodes, { thresholdMs: 20 });
    const payload = buildFlamePayload(model);
    addBlockingLane(payload, r);
    const lane = payload.meta.lanes![0];
    assert.equal(lane.spans.length, 6);
    // The timeline starts at the first sample (startTime + 1 ms).
    assert.deepEqual(lane.spans.slice(0, 2), [9500, 49500]);
    assert.match(lane.labels[0], /^Event loop blocked 40\.0 ms: monthlyReport \(report\.js:\d+\)$/);
  });

  it('a long turn that served many short requests labels no line: no function held it', async () => {
    const catalogPage: F = { name: 'catalogPage', url: pathToFileURL(path.join(APP, 'lib/catalog.js')).href, at: pos('lib/catalog.js', 'function catalogPage') };
    const recordVisit: F = { name: 'recordVisit', url: pathToFileURL(path.join(APP, 'lib/audit.js')).href, at: pos('lib/audit.js', 'function recordVisit') };
    const count: F = { name: 'count', url: pathToFileURL(path.join(APP, 'lib/audit.js')).href, at: pos('lib/audit.js', 'function count') };
    const visitHandler: F = { name: '', url: pathToFileURL(path.join(APP, 'server.js')).href, at: pos('server.js', "app.get('/visit'", '(req') };
    // 50 ms, five kinds of short work taking turns every millisecond: each function 20% of the turn.
    const rotation = [
      { stack: [ordersHandler], line: ordersLine },
      { stack: [reportHandler, monthlyReport], line: lineOf('lib/report.js', 'function monthlyReport') + 1 },
      { stack: [catalogPage], line: lineOf('lib/catalog.js', 'function catalogPage') + 1 },
      { stack: [visitHandler, recordVisit], line: lineOf('lib/audit.js', 'function recordVisit') + 1 },
      { stack: [count], line: lineOf('lib/audit.js', 'function count') + 1 },
    ];
    const busy = profile(Array.from({ length: 50 }, (_, i) => rotation[i % 5]));
    const r = await analyzeBlocking(busy, [t(0.5), t(50.5)], { thresholdMs: 20 });
    assert.equal(r.episodes, 1);
    assert.equal(r.longTasks.length, 1, 'the long turn is still counted and listed');
    assert.deepEqual(r.blockingLines, []);
    // The same turn held by one function for 40 of its 50 ms: that function's line is labelled.
    const held = profile(Array.from({ length: 50 }, (_, i) => (i >= 5 && i < 45 ? { stack: [reportHandler, monthlyReport, pbkdf2Sync], line: 69 } : rotation[i % 5])));
    const again = await analyzeBlocking(held, [t(0.5), t(50.5)], { thresholdMs: 20 });
    assert.deepEqual(again.blockingLines.map((l) => [l.function, l.line]), [['monthlyReport', pbkdf2Line]]);
  });

  it('labels the line that held the turns, not the line that finished them in a sample or two', async () => {
    // Each report: 40 ms in pbkdf2Sync on its line, then 1 ms on `return key.toString('hex')…` (seen in
    // real VS Code: that line was labelled "blocked the loop: 42 turns, up to 201 ms" too).
    const returnLine = lineOf('lib/report.js', "return key.toString('hex')");
    const report = [
      ...Array.from({ length: 40 }, () => ({ stack: [reportHandler, monthlyReport, pbkdf2Sync], line: 69 })),
      { stack: [reportHandler, monthlyReport], line: returnLine },
    ];
    const two = profile([...Array.from({ length: 10 }, () => ({ stack: [ordersHandler], line: ordersLine })), ...report, ...report]);
    const r = await analyzeBlocking(two, [t(10.5), t(51.5), t(51.5), t(92.5)], { thresholdMs: 20 });
    assert.deepEqual(r.blockingLines.map((l) => [l.function, l.line, l.episodes]), [['monthlyReport', pbkdf2Line, 2]]);
    // The same two lines splitting the turns' work, 25 and 16 ms: both held them.
    const split = [
      ...Array.from({ length: 25 }, () => ({ stack: [reportHandler, monthlyReport, pbkdf2Sync], line: 69 })),
      ...Array.from({ length: 16 }, () => ({ stack: [reportHandler, monthlyReport], line: returnLine })),
    ];
    const both = await analyzeBlocking(profile([...Array.from({ length: 10 }, () => ({ stack: [ordersHandler], line: ordersLine })), ...split, ...split]), [t(10.5), t(51.5), t(51.5), t(92.5)], { thresholdMs: 20 });
    assert.deepEqual(both.blockingLines.map((l) => l.line).sort((a, b) => a - b), [pbkdf2Line, returnLine]);
  });

  it('no episodes: nothing charged', async () => {
    const r = await analyzeBlocking(model, [], { thresholdMs: 20 });
    assert.deepEqual([r.episodes, r.blockingLines.length, r.longTasks.length], [0, 0, 0]);
  });
});
