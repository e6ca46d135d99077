/**
 * The allocation, leak and event-loop surfaces with hostile profile text (function names and paths are
 * written by the profiled program): labels stay one line without icons, hovers and the status tooltip
 * form no link, HTML or heading, the CLI's tables carry no escape sequence. And what they say.
 */
import { strict as assert } from 'node:assert';
import { Lexer, type Token } from 'marked';
import type { AllocationAnnotation, BlockedAnnotation } from '../../../src/core/annotate';
import { labelText } from '../../../src/shared/text';
import { allocationHover, allocationLabel, blockedHover, blockedLabel } from '../../../src/vscode/runtime/format';
import { renderStatus } from '../../../src/vscode/status/render';
import { eventLoopBlock, memoryBlock, renderLeak, routesBlock } from '../../../src/cli/memoryOutput';
import { HOSTILE_NAMES, RAW_CONTROL } from '../../hostileText';

function tokensOf(markdown: string): Token[] {
  const out: Token[] = [];
  const walk = (list: Token[] | undefined) => {
    for (const t of list ?? []) {
      out.push(t);
      const inner = t as Token & { tokens?: Token[]; items?: Token[] };
      walk(inner.tokens);
      walk(inner.items);
    }
  };
  walk(Lexer.lex(markdown, { gfm: true }));
  return out;
}
function assertInert(markdown: string, label: string): void {
  const bad = tokensOf(markdown).filter((t) => t.type === 'link' || t.type === 'html' || t.type === 'heading' || t.type === 'image');
  assert.deepEqual(bad.map((t) => `${t.type}: ${t.raw}`), [], `${label}: ${JSON.stringify(markdown)}`);
  assert.doesNotMatch(markdown, /[\r\u2028\u2029\u0085]/, `${label}: no line terminator`);
}
const links = (md: string) => tokensOf(md).filter((t) => t.type === 'link').map((t) => (t as Token & { href: string }).href);

const alloc = (name: string, kind: AllocationAnnotation['kind']): AllocationAnnotation => ({ file: `/app/${name}.js`, line: 3, function: name, kind, bytes: 2_000_000, bytesPerRequest: 1433.6, pct: 48.5, calls: [{ function: name, where: name, bytes: 1000 }], heat: 4 });
const blocked = (name: string): BlockedAnnotation => ({ file: `/app/${name}.js`, line: 8, function: name, blockedMs: 2105.7, episodes: 69, episodeMs: [200.9, 85.5, 41, 40.2], medianEpisodeMs: 40.6, thresholdMs: 20 });

describe('allocation, leak and event-loop surfaces', () => {
  it('labels: what the line costs per request, in one line', () => {
    assert.equal(allocationLabel(alloc('catalogPage', 'function')), 'allocates 1.4 KB/req');
    assert.equal(allocationLabel(alloc('handler', 'call')), 'calls allocate 1.4 KB/req');
    assert.equal(allocationLabel({ ...alloc('recordVisit', 'retained'), bytesPerRequest: 310 }), 'retains 310 B/req');
    assert.equal(allocationLabel({ ...alloc('x', 'function'), bytesPerRequest: null }), 'allocates 1.91 MB');
    assert.equal(blockedLabel(blocked('monthlyReport')), 'blocked the loop: 69 turns, up to 201 ms');
    for (const name of HOSTILE_NAMES) {
      for (const label of [allocationLabel(alloc(name, 'function')), blockedLabel(blocked(name))].map(labelText)) {
        assert.doesNotMatch(label, RAW_CONTROL, JSON.stringify(label));
        assert.ok(!label.includes('$('), label);
      }
    }
  });

  it('hovers: the episodes\' lengths and the usual fixes; hostile names stay text', () => {
    const b = blockedHover(blocked('monthlyReport'), 'p.cpuprofile');
    assert.match(b, /\*\*Blocked the event loop\*\*: 2,106 ms of CPU here during 69 turns of the loop of 20\.0 ms or more \(median 40\.6 ms, longest 201 ms\)/);
    assert.match(b, /\*\*Episodes\*\*: 201 ms, 85\.5 ms, 41\.0 ms, 40\.2 ms/);
    assert.match(b, /worker thread/);
    assert.match(allocationHover(alloc('catalogPage', 'function'), 'p'), /allocates\*\* \*\*1\.4 KB per request\*\*/);
    assert.match(allocationHover(alloc('recordVisit', 'retained'), 'leak'), /Retained after full GC/);
    for (const name of HOSTILE_NAMES) {
      assertInert(blockedHover(blocked(name), name), 'blocked hover');
      for (const kind of ['function', 'call', 'retained'] as const) assertInert(allocationHover(alloc(name, kind), name), `${kind} hover`);
      // Inlining notes name the program's functions too (allocations through inlining).
      const fn = { function: name, file: `/app/${name}.js`, line: 2 };
      assertInert(allocationHover({ ...alloc(name, 'function'), inlining: { ranInlinedInto: [{ ...fn, bytes: 9, placement: 'inlined' }] } }, name), 'placed hover');
      const notPlaced = { ...alloc(name, 'function'), inlining: { includes: [{ ...fn, reportedByV8: true }], notPlaced: `${name} (object literal, line 3) and ${name} can each allocate` } };
      assertInert(allocationHover(notPlaced, name), 'not-placed hover');
      const label = labelText(allocationLabel(notPlaced));
      assert.doesNotMatch(label, RAW_CONTROL, JSON.stringify(label));
      assert.ok(!label.includes('$('), label);
    }
  });

  it('status bar: loop p99 beside the hottest function; a leak check\'s verdict and comparison', () => {
    const p = renderStatus({ kind: 'profiled', function: 'handler', selfPct: 10, ownPct: 10, file: '/a.js', line: 1, profilePath: '/p', loopP99Ms: 73.8, blockedBy: 'monthlyReport (report.js:8)' });
    assert.equal(p.text, '$(flame) handler 10.0% self · loop p99 73.8 ms');
    assert.match(p.tooltip, /\*\*Event loop\*\*: p99 delay 73\.8 ms — held longest by `monthlyReport \(report\.js:8\)`/);
    const fixed = renderStatus({ kind: 'leak', name: 'api', verdict: 'stable', bytesPerRequest: -1, ciLow: -37, ciHigh: 36, requests: 8000, comparison: 'stable now; was +295 B/request' });
    assert.equal(fixed.text, '$(pulse) heap stable now; was +295 B/req');
    assert.equal(fixed.tone, 'faster');
    const growing = renderStatus({ kind: 'leak', name: 'api', verdict: 'growing', bytesPerRequest: 295, ciLow: 266, ciHigh: 324, requests: 8000, site: { function: 'recordVisit', file: '/app/lib/audit.js', line: 8 } });
    assert.equal(growing.text, '$(pulse) heap growing +295 B/req');
    assert.equal(growing.tone, 'slower');
    for (const name of HOSTILE_NAMES) {
      const r = renderStatus({ kind: 'leak', name, verdict: 'growing', bytesPerRequest: 1, ciLow: 1, ciHigh: 1, requests: 1, comparison: name, site: { function: name, file: `/x/${name}`, line: 1 } });
      assert.deepEqual(links(r.tooltip), ['command:hotpath.checkForLeaks'], r.tooltip);
      assert.doesNotMatch(r.text, RAW_CONTROL, r.text);
      assert.ok(!r.text.replace('$(pulse)', '').includes('$('), r.text);
      const crashed = renderStatus({ kind: 'leak', name, verdict: 'incomplete', bytesPerRequest: 1, ciLow: 1, ciHigh: 1, requests: 1, crash: { outOfMemory: false, exit: name, message: name, rungs: [{ requests: 1, heapUsedBytes: 1 }] } });
      assert.deepEqual(links(crashed.tooltip), ['command:hotpath.checkForLeaks'], crashed.tooltip);
      assert.doesNotMatch(crashed.text, RAW_CONTROL, crashed.text);
      assert.ok(!crashed.text.replace('$(pulse)', '').includes('$('), crashed.text);
      const q = renderStatus({ kind: 'profiled', function: 'f', selfPct: 1, ownPct: 1, file: '/a.js', line: 1, profilePath: '/p', loopP99Ms: 1, blockedBy: name });
      assert.deepEqual(links(q.tooltip), ['command:hotpath.showFlamegraph', 'command:hotpath.establishBaseline']);
    }
  });

  it('CLI: routes, memory, event-loop and leak sections carry no escape sequence from the app', () => {
    for (const name of HOSTILE_NAMES) {
      const fn = { function: name, file: `/app/${name}.js`, line: 2 };
      const site = { function: name, file: `/app/${name}.js`, line: 3, bytes: 10, bytesPerRequest: 1, pct: 10, category: 'dependency', package: name, inlining: { includes: [{ ...fn, reportedByV8: true }], notPlaced: name, ranInlinedInto: [{ ...fn, bytes: 5, placement: 'inferred' as const }] } };
      const text = [
        routesBlock({ routes: [{ method: 'GET', path: `/${name}`, requests: 1, latencyMs: { p50: 1, p90: 1, p99: 1, max: 1 }, non2xx: 0 }, { method: 'GET', path: '/b', requests: 1, latencyMs: { p50: 1, p90: 1, p99: 1, max: 1 }, non2xx: 0 }] } as never),
        memoryBlock({ allocations: { samplingIntervalBytes: 32768, includesCollected: true, totalBytes: 10, bytesPerRequest: 1, sites: [site], heapProfilePath: null }, gcPct: 1, gcPauses: null, gcSource: 'cpu-profile' }, '/'),
        eventLoopBlock({ delayMs: null, utilization: null, thresholdMs: 20, episodes: 1, blockedMs: 30, limitation: name, longTasks: [{ startMs: 1, durationMs: 30, cpuMs: 30, function: name, file: `/app/${name}`, line: 2 }], blockingLines: [{ function: name, file: `/app/${name}`, line: 2, blockedMs: 30, episodes: 1, episodeMs: [30], medianEpisodeMs: 30 }] }, '/'),
        renderLeak({ kind: 'leak', name, target: { command: [name], pid: 1, nodeVersion: name, nodeEnv: null }, leak: { verdict: 'growing', bytesPerRequest: 300, ciLow: 200, ciHigh: 400, n: 5, df: 3, rungs: [], sites: [{ ...site, retainedBytes: 1, retainedBytesPerRequest: 1 }], requests: 8000, samplingIntervalBytes: 16384, heapProfilePath: `/tmp/${name}`, heapCeiling: { maxOldSpaceMb: 1024, setBy: 'hotpath', heapSizeLimitBytes: 2 ** 30 }, crash: null }, previous: { createdAt: name, comparison: { change: 'fixed', before: {} as never, after: {} as never, summary: name } }, checks: [], warnings: [] } as never, '/'),
        // A check the app did not survive: its last output and V8's line are the app's words.
        renderLeak({ kind: 'leak', name, target: { command: [name], pid: 1, nodeVersion: name, nodeEnv: null }, leak: { verdict: 'incomplete', bytesPerRequest: 300, ciLow: 200, ciHigh: 400, n: 3, df: 1, rungs: [{ requests: 0, phase: 'warmup', heapUsedBytes: 1 }], sites: [], requests: 200, samplingIntervalBytes: 16384, heapProfilePath: null, heapCeiling: { maxOldSpaceMb: null, setBy: 'app', heapSizeLimitBytes: null }, crash: { code: 3, signal: null, outOfMemory: true, outOfMemoryLine: name, during: 'load', afterRequests: 200, rungTarget: 400, output: [name, `${name}${name}`], message: `The app ran out of memory (V8: "${name}")` } }, previous: null, checks: [], warnings: [] } as never, '/'),
      ].join('\n');
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(text, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202e]/, JSON.stringify(text).slice(0, 300));
    }
  });
});
