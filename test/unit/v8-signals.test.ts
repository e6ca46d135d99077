import { strict as assert } from 'node:assert';
import { buildProfileModel } from '../../src/core/profile';
import { explainDeopt, explainNotInlined, explainNotOptimized, protectorFindings } from '../../src/core/v8/explain';
import { addV8FlameExtras } from '../../src/core/v8/flameExtras';
import { formatV8Summary } from '../../src/core/v8/format';
import { joinV8Signals, tierUnknownOf } from '../../src/core/v8/join';
import { v8FunctionMarkdown } from '../../src/vscode/annotations/format';
import { knownTierTooltipText, tierTooltipText } from '../../src/shared/flame/tiers';
import { buildRawFunctions } from '../../src/core/v8/raw';
import { lineStarts, positionAt } from '../../src/core/v8/scripts';
import { calibrateLayout, optimizerDisabled, tierFromStatus } from '../../src/core/v8/statusBits';
import { parseTrace } from '../../src/core/v8/traceParser';
import type { V8FunctionSignals, V8RawSignals } from '../../src/core/v8/types';
import { buildFlamePayload } from '../../src/core/flame';

describe('V8 optimization status bits', () => {
  // Values observed on Node 20, 22 and 24 (v8-signals §2.5 and this project's runs).
  const A = calibrateLayout(0x51, 0x81)!;

  it('calibrates the layout from probes instead of assuming it', () => {
    assert.ok(A);
    assert.equal(calibrateLayout(0x31, 0x81)?.name, A.name, 'Node 24: the hot probe may be Maglev code');
    assert.equal(calibrateLayout(0x81, 0x81)?.name, A.name, 'the hot probe need not be optimized yet');
    // A later V8 without kAlwaysOptimize: every bit from 3 up one lower (interpreted = bit 6).
    const shifted = calibrateLayout(0x29, 0x41);
    assert.ok(shifted && shifted.name !== A.name);
    assert.equal(tierFromStatus(0x29, shifted), 'TurboFan');
    assert.equal(calibrateLayout(0x51, 0x3), undefined, 'unknown bits: no layout, tiers unknown');
  });

  it('reads tiers', () => {
    assert.equal(tierFromStatus(0x51, A), 'TurboFan');
    assert.equal(tierFromStatus(0x31, A), 'Maglev');
    assert.equal(tierFromStatus(0x8001, A), 'Sparkplug');
    assert.equal(tierFromStatus(0x81, A), 'Ignition');
    assert.equal(tierFromStatus(0x800081, A), 'Ignition', 'marked for Maglev, still interpreted (a breakpoint on Node 24)');
    assert.equal(tierFromStatus(0x40001, A), 'unknown', 'lazy: never compiled');
    assert.equal(tierFromStatus(0x51, undefined), 'unknown');
  });

  it('reads Node 26 (V8 14.6: kAlwaysOptimize and --always-turbofan are gone, every bit from 3 up one lower)', () => {
    // Observed with opt-status.js on v26.10.0: lazy 0x20001, Ignition 0x41, Sparkplug 0x4001,
    // TurboFan 0x29, Maglev 0x19, marked 0xc1; --max-opt=0 0x43, --jitless 0x1043.
    const B = calibrateLayout(0x29, 0x41)!;
    assert.ok(B && B.name !== A.name);
    assert.equal(calibrateLayout(0x19, 0x41)?.name, B.name, 'the hot probe may be Maglev code');
    assert.equal(tierFromStatus(0x29, B), 'TurboFan');
    assert.equal(tierFromStatus(0x19, B), 'Maglev');
    assert.equal(tierFromStatus(0x4001, B), 'Sparkplug');
    assert.equal(tierFromStatus(0x41, B), 'Ignition');
    assert.equal(tierFromStatus(0xc1, B), 'Ignition', 'marked for optimization, still interpreted');
    assert.equal(tierFromStatus(0x20001, B), 'unknown', 'lazy: never compiled');
    assert.ok(optimizerDisabled(0x43) && optimizerDisabled(0x1043), 'bit 1 (kNeverOptimize) did not move');
    assert.equal(calibrateLayout(0x43, 0x43)?.name, B.name);
    assert.equal(tierFromStatus(0x1043, B), 'Ignition');
    // Read with the old layout, Node 26's interpreted code would look TurboFan-compiled: calibration matters.
    assert.equal(tierFromStatus(0x41, A), 'TurboFan');
  });

  it('sees an optimizer switched off for the whole process (--max-opt=0: 0x83, --jitless: 0x2083)', () => {
    assert.ok(optimizerDisabled(0x83) && optimizerDisabled(0x2083));
    assert.ok(!optimizerDisabled(0x81));
    assert.equal(calibrateLayout(0x83, 0x83)?.name, A.name);
    assert.equal(tierFromStatus(0x2083, A), 'Ignition');
  });
});

describe('script positions', () => {
  it('counts lines like V8 (\\n, lone \\r, U+2028/9) and converts both ways', () => {
    const src = 'a\nbc\r\nd\re\u2028f';
    const starts = lineStarts(src);
    assert.deepEqual([...starts], [0, 2, 6, 8, 10]);
    assert.deepEqual(positionAt(starts, 7), { line: 3, column: 2 });
    assert.deepEqual(positionAt(starts, 0), { line: 1, column: 1 });
  });
});

// A run of the V8-signals fixture, reduced: handle (server.js:25) → renderInvoice (invoice.js:16),
// which inlines lineTotal (invoice.js:12) and deoptimized at invoice.js:13 inside the inlined lineTotal.
const TRACE = `--- FUNCTION SOURCE (/app/lib/invoice.js:renderInvoice) id{4,-1} start{500} ---
(items, currency) {
  let total = 0;
  return total;
}
--- END ---
--- FUNCTION SOURCE (/app/lib/invoice.js:lineTotal) id{4,0} start{400} ---
(item) {
  return item.price * item.qty;
}
--- END ---
INLINE (lineTotal) id{4,0} AS 0 AT <-1:560>
[completed compiling 0x1 <JSFunction renderInvoice </app/lib/invoice.js> (sfi = 0xa1)> (target TURBOFAN) - took 0.1, 1.0, 0.1 ms]
[bailout (kind: deopt-eager, reason: wrong map): begin. deoptimizing 0x1 <JSFunction renderInvoice </app/lib/invoice.js> (sfi = 0xa1)>, 0x2 <Code TURBOFAN>, opt id 4, bytecode offset 0, deopt exit 3]
            ;;; deoptimize at </app/lib/invoice.js:13:15> inlined at </app/lib/invoice.js:23:19>
[bailout end. took 0.05 ms]
[completed compiling 0x1 <JSFunction renderInvoice </app/lib/invoice.js> (sfi = 0xa1)> (target TURBOFAN) - took 0.1, 1.0, 0.1 ms]
[bailout (kind: deopt-eager, reason: prepare for on stack replacement (OSR)): begin. deoptimizing 0x1 <JSFunction renderInvoice </app/lib/invoice.js> (sfi = 0xa1)>, 0x2 <Code MAGLEV>, opt id 5, bytecode offset 9, deopt exit 1]
            ;;; deoptimize at </app/lib/invoice.js:22:3>
[bailout end. took 0.05 ms]
${Array.from({ length: 40 }, () => '[marking 0x7 <JSFunction auditTrail </app/server.js> (sfi = 0xb7)> for optimization to TURBOFAN, ConcurrencyMode::kConcurrent, reason: hot and stable]').join('\n')}
`;

/** invoice.js: lineTotal at offset 400 = line 12, renderInvoice at 500 = line 16 (a stand-in script). */
function position(file: string, offset: number) {
  if (file !== '/app/lib/invoice.js') return undefined;
  if (offset === 400) return { line: 12, column: 19 };
  if (offset === 500) return { line: 16, column: 23 };
  return undefined;
}

function profileJson(): string {
  const cf = (functionName: string, url: string, lineNumber: number, columnNumber: number) => ({ functionName, scriptId: '1', url, lineNumber, columnNumber });
  return JSON.stringify({
    nodes: [
      { id: 1, callFrame: cf('(root)', '', -1, -1), hitCount: 0, children: [2, 4] },
      { id: 2, callFrame: cf('handle', 'file:///app/server.js', 24, 15), hitCount: 10, children: [3], positionTicks: [{ line: 28, ticks: 10 }] },
      { id: 3, callFrame: cf('renderInvoice', 'file:///app/lib/invoice.js', 15, 22), hitCount: 80, positionTicks: [{ line: 23, ticks: 50 }, { line: 13, ticks: 30 }] },
      { id: 4, callFrame: cf('(idle)', '', -1, -1), hitCount: 10 },
    ],
    startTime: 0, endTime: 100_000,
    samples: [...Array(10).fill(2), ...Array(80).fill(3), ...Array(10).fill(4)],
    timeDeltas: Array(100).fill(1000),
  });
}

function raw(): V8RawSignals {
  const trace = parseTrace(TRACE);
  const functions = buildRawFunctions({
    trace,
    statuses: [
      { file: '/app/lib/invoice.js', line: 16, column: 23, tier: 'TurboFan', status: 0x51, sourceLength: -1 },
      { file: '/app/lib/invoice.js', line: 12, column: 19, tier: 'Sparkplug', status: 0x8001, sourceLength: 40 },
      { file: '/app/server.js', line: 25, column: 16, tier: 'TurboFan', status: 0x51, sourceLength: -1 },
      { file: '/app/server.js', line: 19, column: 20, tier: 'Ignition', status: 0x81, sourceLength: 90, name: 'auditTrail' },
    ],
    profileFunctions: [
      { name: 'handle', file: '/app/server.js', line: 25, column: 16 },
      { name: 'renderInvoice', file: '/app/lib/invoice.js', line: 16, column: 23 },
    ],
    refusals: [],
    position,
  });
  return { version: 1, mode: 'launch', collection: { collected: true, nodeVersion: 'v20.20.2', tiers: ['Ignition', 'Sparkplug', 'TurboFan'] }, functions };
}

describe('joining V8 signals to the profile', () => {
  it('attributes by position: tier, optimizations, deopts with position and inlined callee, inlining both ways', async () => {
    const model = buildProfileModel(profileJson(), { sourceMaps: false });
    const { functions, findings } = await joinV8Signals(model, raw());
    const f = model.functions.findIndex((x) => x.name === 'renderInvoice');
    const s = functions.get(f)!;
    assert.equal(s.tier, 'TurboFan');
    assert.equal(s.optimizations, 2);
    const real = s.deopts.filter((d) => !d.osr);
    assert.equal(real.length, 1);
    assert.deepEqual([real[0].reason, real[0].file, real[0].line, real[0].column], ['wrong map', '/app/lib/invoice.js', 13, 15]);
    assert.equal(real[0].inlinedFrom, 'lineTotal (/app/lib/invoice.js:12)');
    assert.equal(real[0].explanation?.title, 'Object shape changed (wrong map)');
    assert.ok(s.deopts.some((d) => d.osr), 'OSR bookkeeping is kept, labelled, after the real deopts');
    assert.equal(s.deopts[s.deopts.length - 1].osr, true);
    assert.deepEqual(s.inlined, ['lineTotal (/app/lib/invoice.js:12)']);
    assert.equal(formatV8Summary(s), 'TurboFan · 1 deopt (wrong map)');
    // Recursion and refusals are absent here; handle has a tier but nothing else.
    assert.equal(functions.get(model.functions.findIndex((x) => x.name === 'handle'))!.tier, 'TurboFan');
    // A function under a breakpoint is no frame of the profile: reported as a finding.
    const audit = findings.find((x) => x.id === 'V8_HOT_FUNCTION_NEVER_COMPILED')!;
    assert.match(audit.title, /auditTrail/);
    assert.match(audit.text, /\/app\/server\.js:19.*40 times.*Ignition/);
  });

  it('lists a deopt inside inlined code on the inlined function too, marked with where it ran', () => {
    const lineTotal = raw().functions.find((x) => x.name === 'lineTotal')!;
    assert.equal(lineTotal.tier, 'Sparkplug');
    assert.deepEqual(lineTotal.inlinedInto.map((r) => r.name), ['renderInvoice']);
    assert.equal(lineTotal.deopts.length, 1);
    assert.equal(lineTotal.deopts[0].inlinedIn?.name, 'renderInvoice');
    assert.equal(lineTotal.endLine, 14);
  });

  it('flags a hot unoptimized function with the cause, and the process-wide optimizer switch', async () => {
    const model = buildProfileModel(profileJson(), { sourceMaps: false });
    const r = raw();
    for (const fn of r.functions) if (fn.name === 'renderInvoice') { fn.tier = 'Ignition'; fn.optimizations = 0; fn.deopts = []; }
    r.optimizerDisabled = '--max-opt=0';
    const { functions, findings } = await joinV8Signals(model, r);
    const s = functions.get(model.functions.findIndex((x) => x.name === 'renderInvoice'))!;
    assert.equal(s.notOptimized?.cause, 'disabled');
    assert.match(s.notOptimized!.reason, /--max-opt=0/);
    assert.equal(formatV8Summary(s), 'Ignition (optimization disabled)');
    assert.ok(findings.some((x) => x.id === 'V8_OPTIMIZER_OFF'));
  });

  it('feeds the flamegraph tier and deopt extras, one per payload function', async () => {
    const model = buildProfileModel(profileJson(), { sourceMaps: false });
    const { functions } = await joinV8Signals(model, raw());
    const payload = addV8FlameExtras(buildFlamePayload(model, { maxTimelineRuns: 0 }), functions);
    const f = model.functions.findIndex((x) => x.name === 'renderInvoice');
    const root = model.functions.findIndex((x) => x.name === '(root)');
    assert.equal(payload.functions.extras!.tier.length, payload.functions.count);
    assert.equal(payload.functions.extras!.tier[f], 4);
    assert.equal(payload.functions.extras!.deopts[f], 1, 'OSR bookkeeping is not counted');
    assert.equal(payload.functions.extras!.tier[root], 0);
  });
});

describe('a tier that is unknown says why (issue 14)', () => {
  it('a traced function V8 no longer had at the end of the run: "gone", in the summary, the hover and the flamegraph', async () => {
    const model = buildProfileModel(profileJson(), { sourceMaps: false });
    const r = raw();
    r.tiersRead = 'ok';
    // renderInvoice was traced (compiled, deopted) but the end-of-run query found no function object.
    for (const fn of r.functions) if (fn.name === 'renderInvoice') { delete fn.tier; delete fn.status; }
    const { functions } = await joinV8Signals(model, r);
    const f = model.functions.findIndex((x) => x.name === 'renderInvoice');
    const s = functions.get(f)!;
    assert.equal(s.tier, 'TurboFan', 'the last traced optimization still gives a tier');
    for (const fn of r.functions) if (fn.name === 'renderInvoice') delete fn.lastTraced;
    const again = (await joinV8Signals(model, r)).functions.get(f)!;
    assert.equal(again.tier, 'unknown');
    assert.equal(again.tierUnknown?.cause, 'gone');
    assert.match(again.tierUnknown!.reason, /no copy of the function existed .*arrow function .*new Function/);
    assert.match(formatV8Summary(again), /^tier unknown \(gone by the end\)/);
    assert.match(v8FunctionMarkdown(again), /\*\*Why the tier is unknown\*\*: no copy of the function existed/);
    const payload = addV8FlameExtras(buildFlamePayload(model, { maxTimelineRuns: 0 }), (await joinV8Signals(model, r)).functions);
    assert.equal(payload.functions.extras!.tierUnknown[f], 1);
    assert.match(tierTooltipText(payload.functions.extras!.tier[f], payload.functions.extras!.tierUnknown[f]), /^Tier unknown: no copy of it existed/);
  });

  it('a function with no code of its own that ran inlined into optimized code takes that tier, and says so', async () => {
    // lineTotal as a frame of its own (the profiler shows inlined frames), under renderInvoice.
    const json = JSON.parse(profileJson());
    json.nodes[2].children = [5];
    json.nodes.push({ id: 5, callFrame: { functionName: 'lineTotal', scriptId: '1', url: 'file:///app/lib/invoice.js', lineNumber: 11, columnNumber: 18 }, hitCount: 20 });
    json.samples = [...Array(10).fill(2), ...Array(60).fill(3), ...Array(20).fill(5), ...Array(10).fill(4)];
    const model = buildProfileModel(JSON.stringify(json), { sourceMaps: false });
    const r = raw();
    r.tiersRead = 'ok';
    // V8 flushed lineTotal's bytecode: its function object has no code (status without a code bit).
    for (const fn of r.functions) if (fn.name === 'lineTotal') { fn.tier = 'unknown'; fn.status = 0x1; }
    const f = model.functions.findIndex((x) => x.name === 'lineTotal');
    const s = (await joinV8Signals(model, r)).functions.get(f)!;
    assert.equal(s.tier, 'TurboFan');
    assert.equal(s.ranInlinedIn, 'renderInvoice (/app/lib/invoice.js:16)');
    assert.equal(s.tierUnknown, undefined);
    assert.match(formatV8Summary(s), /^TurboFan \(inlined into renderInvoice\)/);
    assert.match(v8FunctionMarkdown(s), /\*\*Ran inlined\*\*: V8 inlined it into `renderInvoice \(\/app\/lib\/invoice\.js:16\)`, whose TurboFan code ran it; it had no code of its own at the end of the run\./);
    const payload = addV8FlameExtras(buildFlamePayload(model, { maxTimelineRuns: 0 }), (await joinV8Signals(model, r)).functions);
    assert.equal(payload.functions.extras!.ranInlined[f], 1);
    assert.equal(knownTierTooltipText(payload.functions.extras!.tier[f], payload.functions.extras!.ranInlined[f]), 'Tier: TurboFan (optimizing compiler) — ran inlined into optimized code (no code of its own)');
    // Inlined only into code that is itself not optimized any more: the tier stays unknown, with its reason.
    for (const fn of r.functions) if (fn.name === 'renderInvoice') fn.tier = 'Ignition';
    const unoptimizedHost = (await joinV8Signals(model, r)).functions.get(f)!;
    assert.equal(unoptimizedHost.tier, 'unknown');
    assert.equal(unoptimizedHost.tierUnknown?.cause, 'no-code');
  });

  it('each way the end-of-run query can go has its own reason', () => {
    const fn = { name: 'f', file: '/a.js', line: 1, column: 1, optimizations: 0, marked: 0, aborted: [], deopts: [], inlined: [], inlinedInto: [] };
    const base = { functions: [fn], collection: { collected: true, nodeVersion: 'v99.0.0' } };
    assert.equal(tierUnknownOf(fn, { ...base, tiersRead: 'unknown-layout' }).cause, 'layout');
    assert.match(tierUnknownOf(fn, { ...base, tiersRead: 'unknown-layout' }).reason, /v99\.0\.0/);
    assert.equal(tierUnknownOf(fn, { ...base, tiersRead: 'process-exited' }).short, 'process exited first');
    assert.equal(tierUnknownOf(fn, { ...base, tiersRead: 'failed' }).cause, 'not-read');
    assert.equal(tierUnknownOf({ ...fn, status: 0x1 }, { ...base, tiersRead: 'ok' }).cause, 'no-code');
    // Signals saved before tiersRead existed: no status anywhere means the query did not run.
    assert.equal(tierUnknownOf(fn, base).cause, 'not-read');
  });

  it('"never optimized" in a script does not advise a warm-up it has none of', () => {
    assert.match(explainNotOptimized('never-marked', '', 'launch').fix, /warm-up/);
    assert.doesNotMatch(explainNotOptimized('never-marked', '', 'script').fix, /warm-up/);
    assert.match(explainNotOptimized('never-marked', '', 'script').fix, /larger input/);
  });
});

describe('explanations and summaries', () => {
  it('explains the common deopt reasons of V8 11.3–13.6 and labels OSR bookkeeping', () => {
    for (const reason of ['wrong map', 'not a Smi', 'not a heap number', 'Smi', 'not a String', 'out of bounds', 'hole', 'overflow', 'minus zero', 'division by zero',
      'Insufficient type feedback for call', 'Insufficient type feedback for generic named access', 'wrong call target', 'wrong feedback cell', 'First use of catch block',
      'deprecated map', 'Storing to a constant field', 'dependent prototype chain changed', 'code dependencies', '(unknown)', 'unexpected name in keyed access',
      'prepare for on stack replacement (OSR)', "exit from OSR'd inner loop", 'JS debugger attached']) {
      const e = explainDeopt(reason);
      assert.ok(e && e.text && e.fix, `no explanation for "${reason}"`);
    }
    assert.match(explainDeopt('First use of catch block')!.text, /does not stop optimization/);
    assert.match(explainDeopt('wrong call target')!.fix, /top level/);
    assert.equal(explainDeopt('something new'), undefined);
    assert.match(explainNotInlined('it calls itself (direct recursion)').title, /recursive/);
  });

  it('explains invalidated protectors (a mutated built-in prototype)', () => {
    const findings = protectorFindings({ NoElements: false, ArraySpecies: true, MapIterator: false });
    assert.deepEqual(findings.map((f) => f.id), ['V8_PROTECTOR_NO_ELEMENTS', 'V8_PROTECTOR_MAP_ITERATOR']);
    assert.match(findings[0].text, /prototype of one of them was replaced/);
    assert.deepEqual(protectorFindings({ NoElementsStructural: false }).map((f) => f.id), ['V8_PROTECTOR_NO_ELEMENTS']);
  });

  it('summarizes a function in one line', () => {
    const base: V8FunctionSignals = { tier: 'TurboFan', optimizations: 1, deopts: [], inlinedInto: [], inlined: [] };
    assert.equal(formatV8Summary(base), 'TurboFan');
    const deopt = (reason: string, count: number, osr = false) => ({ kind: 'deopt-eager', reason, file: 'a.js', line: 1, column: 1, count, osr });
    assert.equal(formatV8Summary({ ...base, deopts: [deopt('not a Smi', 1), deopt('wrong map', 2), deopt('prepare for on stack replacement (OSR)', 9, true)] }), 'TurboFan · 3 deopts (wrong map)');
    assert.equal(formatV8Summary({ ...base, tier: 'Ignition', notOptimized: { reason: 'never optimized', cause: 'never-marked' } }), 'Ignition (never optimized)');
    assert.equal(formatV8Summary({ ...base, tier: 'Sparkplug', inlinedInto: ['loop (/a.js:3)', 'x (/a.js:9)'] }), 'Sparkplug · inlined into loop +1');
    assert.equal(formatV8Summary({ ...base, tier: 'unknown' }), 'tier unknown');
  });
});
