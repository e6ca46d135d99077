/**
 * Each thread's flamegraph cut from the merged threads' one (flame/threads.ts) is that thread's own
 * flamegraph — the same frames, times and flame chart as its profile drawn alone — and carries the
 * merged attribution's inlined frames: a search in it finds what the editor places in that thread.
 */
import * as assert from 'node:assert/strict';
import { attributeProfile } from '../../../src/core/attribution';
import { buildFlamePayload } from '../../../src/core/flame';
import { threadsFlamePayloads } from '../../../src/core/flame/threads';
import { modelFromRaw } from '../../../src/core/profile/model';
import { PADDING, scanProfile } from '../../../src/core/profile/scanner';
import { mergedThreads, type ThreadPart } from '../../../src/core/profile/threads';
import type { FlamePayload } from '../../../src/shared/flame/payload';
import { normalizeTree } from '../../../src/shared/flame/tree';
import { synthProfile } from '../attribution/synth';
import { readFixture } from '../profile/helpers';
import { quoteAndTwice, signals } from './inlinedProfiles';

const THREADS: Array<[string, string]> = [
  ['main', synthProfile(quoteAndTwice({ quoteOwn: 3, inlinedBody: 40, twiceOwn: 5, lineTotalOwn: 7 }))],
  ['worker 1 (pool.js)', synthProfile(quoteAndTwice({ quoteOwn: 1, inlinedLoop: 6, inlinedBody: 90, twiceOwn: 2, lineTotalOwn: 3 }))],
  ['worker 2 (pool.js)', readFixture('cpu-hot')],
];

const part = (thread: string, text: string): ThreadPart => {
  const buf = Buffer.alloc(Buffer.byteLength(text) + PADDING);
  buf.write(text);
  return { thread, raw: scanProfile(buf, Buffer.byteLength(text), thread), source: `${thread}.cpuprofile` };
};

/** Self time per call path of function names, the root left out (a thread's root is named after it). */
function pathSelf(p: FlamePayload): Map<string, number> {
  const { frames, functions, strings } = p;
  const pathOf: string[] = [];
  const out = new Map<string, number>();
  for (let i = 0; i < frames.parent.length; i++) {
    const name = strings[functions.name[frames.func[i]]] + ((functions.inlinedOf?.[frames.func[i]] ?? -1) >= 0 ? ' (inlined)' : '');
    pathOf[i] = i === 0 ? '' : `${pathOf[frames.parent[i]]}/${name}`;
    if (i > 0 && frames.selfUs[i] > 0) out.set(pathOf[i], (out.get(pathOf[i]) ?? 0) + frames.selfUs[i]);
  }
  return out;
}

/** The flame chart as [start µs, call path] runs. */
function chart(p: FlamePayload): string[] {
  const { frames, functions, strings } = p;
  const pathOf: string[] = [];
  for (let i = 0; i < frames.parent.length; i++) pathOf[i] = i === 0 ? '' : `${pathOf[frames.parent[i]]}/${strings[functions.name[frames.func[i]]]}`;
  const t = p.timeline!;
  return [...t.frame].map((f, i) => `${t.startUs[i].toFixed(3)} ${pathOf[f]}`).concat(`end ${t.endUs.toFixed(3)}`);
}

const close = (a: Map<string, number>, b: Map<string, number>, what: string) => {
  assert.deepEqual([...a.keys()].sort(), [...b.keys()].sort(), what);
  for (const [k, v] of a) assert.ok(Math.abs(v - b.get(k)!) < 1e-6, `${what}: ${k} ${v} vs ${b.get(k)}`);
};

describe('each thread\'s flamegraph, cut from the merged threads\' one', () => {
  for (const maxTimelineRuns of [100_000, 7]) {
    it(`is the thread's own flamegraph: frames, times and flame chart (${maxTimelineRuns === 7 ? 'resampled' : 'exact'} chart)`, () => {
      const { model, spans } = mergedThreads(THREADS.map(([t, text]) => part(t, text)), 'run.cpuprofile');
      const { all, threads } = threadsFlamePayloads(model, spans, { title: 'run', maxTimelineRuns });
      assert.equal(all.timeline, undefined, 'no flame chart for the threads together');
      assert.deepEqual(threads.map((t) => t.thread), THREADS.map(([t]) => t));
      threads.forEach((t, k) => {
        const own = buildFlamePayload(modelFromRaw(part(...THREADS[k]).raw, 'x', THREADS[k][0]), { maxTimelineRuns });
        assert.ok(Math.abs(t.payload.meta.durationUs - own.meta.durationUs) < 1e-6, t.thread);
        assert.equal(t.payload.meta.sampleCount, own.meta.sampleCount);
        assert.equal(t.payload.meta.thread, t.thread);
        close(pathSelf(t.payload), pathSelf(own), t.thread);
        assert.deepEqual(chart(t.payload), chart(own), t.thread);
        assert.equal(t.payload.timeline!.resampled, own.timeline!.resampled);
        if (maxTimelineRuns === 7 && k === 2) assert.ok(own.timeline!.resampled, 'the recorded profile has more runs than that');
        // Its table holds what it draws: a search counts the functions of this thread only.
        const drawn = new Set(t.payload.frames.func);
        assert.equal(t.payload.functions.count, drawn.size, t.thread);
      });
    });
  }

  it('splits inlined code as the merged view (the editor\'s placement) does, in each thread', async () => {
    const { model, spans } = mergedThreads(THREADS.map(([t, text]) => part(t, text)), 'run.cpuprofile');
    const attribution = await attributeProfile(model, { v8: signals(true) });
    const { all, threads } = threadsFlamePayloads(model, spans, { title: 'run', attribution, maxTimelineRuns: 0 });
    const inlinedUs = (p: FlamePayload) => [...pathSelf(p)].filter(([k]) => k.endsWith('/lineTotal (inlined)')).reduce((s, [, v]) => s + v, 0);
    assert.equal(inlinedUs(threads[0].payload), 40_000);
    assert.equal(inlinedUs(threads[1].payload), 96_000);
    assert.equal(inlinedUs(threads[2].payload), 0);
    assert.equal(inlinedUs(all), 136_000, 'the merged view: the threads\' together');
    // Every merged frame under a thread is in that thread's flamegraph, with the same time.
    threads.forEach((t) => {
      const prefix = `/${t.thread}`;
      const fromAll = new Map([...pathSelf(all)].filter(([k]) => k.startsWith(`${prefix}/`)).map(([k, v]) => [k.slice(prefix.length), v]));
      close(pathSelf(t.payload), fromAll, t.thread);
      // A twin points at a function in the thread's own table.
      const { inlinedOf, count } = t.payload.functions;
      for (let f = 0; f < count; f++) assert.ok((inlinedOf?.[f] ?? -1) < count);
      assert.equal(normalizeTree(t.payload.frames.parent.length, t.payload.frames.parent, t.payload.frames.func, t.payload.frames.selfUs).tree.totalUs[0], t.payload.meta.durationUs);
    });
  });
});
