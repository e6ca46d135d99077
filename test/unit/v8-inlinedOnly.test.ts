// A function that only ran inlined has no frame in the profile: its time is placed on it by attribution
// (from V8's inlining facts), and its V8 tier is that of the optimized code it ran in — the frame it was
// placed from — in the hotspot row, the JSON, the CodeLens and the hover, on every thread.
import { strict as assert } from 'node:assert';
import { buildAnnotations } from '../../src/core/annotate';
import { formatV8Summary } from '../../src/core/v8/format';
import type { RawV8Function, V8RawSignals } from '../../src/core/v8/types';
import { joinV8Signals } from '../../src/core/v8/join';
import { analyzeModel, annotateHotspots } from '../../src/core/workflow/analyze';
import { v8FunctionMarkdown } from '../../src/vscode/annotations/format';
import { anchor, file, fn, lineOf, synthModel } from './attribution/synth';

const APP = 'app.js';
const PRICING = 'lib/pricing.js';
const quote = anchor(APP, 'function quote');
const lineTotal = anchor(PRICING, 'function lineTotal');
const callLine = lineOf(APP, 'sum += lineTotal(item)');
const loop = lineOf(PRICING, 'for (let unit');
const body = lineOf(PRICING, 'total += item.unitPrice');

/** V8 charged lineTotal's loop (pricing.js) to quote's frame: lineTotal has no frame of its own. */
const model = () => synthModel([fn('', APP, 1, 1, { children: [fn('quote', APP, quote[0], quote[1], { ticks: { [loop]: 10, [body]: 60, [callLine]: 2 } })] })]);
const quoteRef = { name: 'quote', file: file(APP), line: quote[0], column: quote[1] };
const totalRef = { name: 'lineTotal', file: file(PRICING), line: lineTotal[0], column: lineTotal[1] };
const record = (ref: typeof quoteRef, rest: Partial<RawV8Function>): RawV8Function => ({ ...ref, optimizations: 0, marked: 0, aborted: [], deopts: [], inlined: [], inlinedInto: [], ...rest });

function signals(options: { lineTotal?: Partial<RawV8Function> | null; quote?: Partial<RawV8Function> } = {}): V8RawSignals {
  const functions = [record(quoteRef, { tier: 'TurboFan', optimizations: 1, marked: 1, inlined: [totalRef], inlineSites: [{ callee: totalRef, caller: quoteRef, line: callLine, column: 12 }], ...options.quote })];
  if (options.lineTotal !== null) functions.push(record(totalRef, { tier: 'Ignition', inlinedInto: [quoteRef], ...options.lineTotal }));
  return { version: 1, collection: { collected: true, nodeVersion: 'v20.0.0' }, mode: 'launch', tiersRead: 'ok', functions };
}

async function analysed(raw: V8RawSignals, thread = 'main') {
  const m = model();
  const v8Functions = (await joinV8Signals(m, raw)).functions;
  const analysis = await analyzeModel(m, { thread, limit: 10, profilePath: '/nonexistent/p.cpuprofile', v8Raw: raw });
  await annotateHotspots(analysis.hotspots, analysis.attribution, m, { v8Functions, raw }, thread);
  const row = analysis.hotspots.find((h) => h.function === 'lineTotal');
  assert.ok(row, `lineTotal is ranked: ${analysis.hotspots.map((h) => h.function).join(', ')}`);
  assert.equal(analysis.attribution.functions[row.id].model, -1, 'it has no frame: it ran only inlined');
  return { m, analysis, row };
}

describe('the V8 tier of a function that only ran inlined', () => {
  it('is the tier of the optimized code it ran in, naming it; its own copy\'s tier is kept apart', async () => {
    const { row } = await analysed(signals());
    assert.equal(row.v8?.tier, 'TurboFan');
    assert.match(row.v8?.ranInlinedIn ?? '', /^quote \(.*app\.js:\d+\)$/);
    assert.equal(row.v8?.ownTier, 'Ignition');
    assert.equal(formatV8Summary(row.v8!), 'TurboFan (inlined into quote)');
  });

  it('reaches the CodeLens and the hover, in a worker thread too', async () => {
    const { m, analysis, row } = await analysed(signals(), 'worker 1 (pool.js)');
    assert.equal(row.v8?.tier, 'TurboFan');
    const annotations = buildAnnotations(m, analysis.attribution, { profilePath: '/nonexistent/p.cpuprofile', hotspots: analysis.hotspots, maxFunctions: 10 });
    const lens = annotations.files.get(file(PRICING))?.functions.find((f) => f.function === 'lineTotal');
    assert.ok(lens?.v8, 'the CodeLens of lineTotal carries V8\'s view');
    assert.equal(formatV8Summary(lens.v8), 'TurboFan (inlined into quote)');
    assert.match(v8FunctionMarkdown(lens.v8), /\*\*Ran inlined\*\*: V8 inlined it into `quote \(.*\)`, whose TurboFan code ran it; every sample of it ran there, none in its own copy \(Ignition at the end of the run\)\./);
  });

  it('with no record of its own (V8 flushed it), still the host\'s tier; a host deoptimized by the end gives the tier it last compiled to', async () => {
    const { row } = await analysed(signals({ lineTotal: null, quote: { tier: 'Ignition', lastTraced: 'Maglev' } }));
    assert.equal(row.v8?.tier, 'Maglev');
    assert.match(row.v8?.ranInlinedIn ?? '', /^quote /);
    assert.equal(row.v8?.ownTier, undefined);
  });

  it('a host that stayed in Sparkplug but ran its loop in on-stack-replacement code gives that code\'s tier, saying OSR (Node 24\'s pool task)', async () => {
    const { row } = await analysed(signals({ quote: { tier: 'Sparkplug', osrTier: 'TurboFan', optimizations: 2 }, lineTotal: { tier: 'TurboFan', optimizations: 2 } }));
    assert.equal(row.v8?.tier, 'TurboFan');
    assert.equal(row.v8?.ranInlinedOsr, true);
    assert.equal(formatV8Summary(row.v8!), 'TurboFan (inlined into quote, OSR)');
    assert.match(v8FunctionMarkdown(row.v8!), /whose TurboFan code compiled on the stack \(OSR: its loop was optimized while it ran; the function itself stayed in a lower tier\) ran it; every sample of it ran there, none in its own copy \(TurboFan at the end of the run\)\./);
  });

  it('a function with a frame of its own that ran mostly inlined takes the host\'s tier too, with the share; one that ran mostly in its own frames keeps its own', async () => {
    const withFrame = (ownMs: number) => synthModel([fn('', APP, 1, 1, { children: [
      fn('quote', APP, quote[0], quote[1], { ticks: { [loop]: 10, [body]: 60, [callLine]: 2 } }),
      fn('lineTotal', PRICING, lineTotal[0], lineTotal[1], { ticks: { [body]: ownMs } }),
    ] })]);
    for (const [ownMs, inlined] of [[10, true], [200, false]] as const) {
      const m = withFrame(ownMs);
      const raw = signals();
      const v8Functions = (await joinV8Signals(m, raw)).functions;
      const analysis = await analyzeModel(m, { thread: 'main', limit: 10, profilePath: '/nonexistent/p.cpuprofile', v8Raw: raw });
      await annotateHotspots(analysis.hotspots, analysis.attribution, m, { v8Functions, raw });
      const row = analysis.hotspots.find((h) => h.function === 'lineTotal')!;
      assert.ok(analysis.attribution.functions[row.id].model >= 0, 'lineTotal has a frame here');
      if (inlined) {
        assert.equal(formatV8Summary(row.v8!), 'TurboFan (inlined into quote)');
        assert.ok(Math.abs(row.v8!.ranInlinedShare! - 70 / 80) < 1e-9, String(row.v8!.ranInlinedShare));
        assert.match(v8FunctionMarkdown(row.v8!), /; 87\.5% of its time ran there, the rest in its own copy \(Ignition at the end of the run\)\./);
      } else {
        assert.equal(row.v8?.tier, 'Ignition');
        assert.equal(row.v8?.ranInlinedIn, undefined);
      }
    }
  });

  it('a host that never ran optimized code leaves the function\'s own tier (no claim it ran inlined)', async () => {
    const { row } = await analysed(signals({ quote: { tier: 'Ignition', optimizations: 0 } }));
    assert.equal(row.v8?.tier, 'Ignition');
    assert.equal(row.v8?.ranInlinedIn, undefined);
  });
});
