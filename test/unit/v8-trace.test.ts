import { strict as assert } from 'node:assert';
import { InliningTraceReader, isV8TraceLine } from '../../src/core/v8/inliningTrace';
import { isOsrReason, parseTrace, strayDependencyTails, TraceParser } from '../../src/core/v8/traceParser';

// Lines as V8 wrote them into the redirected code-trace file (Node 20.20.2 and 24.21.0, this project's
// fixtures); addresses kept, sources shortened.
const NODE20 = `[marking 0x0f80ef1535d1 <JSFunction scale </app/lib/scale.js> (sfi = 0x261ac285bbd1)> for optimization to TURBOFAN, ConcurrencyMode::kConcurrent, reason: small function]
--- FUNCTION SOURCE (/app/lib/scale.js:scale) id{0,-1} start{113} ---
(v) {
  let r = v * 3 + 1;
  return r & 0xffff;
}
--- END ---
[completed compiling 0x0f80ef1535d1 <JSFunction scale </app/lib/scale.js> (sfi = 0x261ac285bbd1)> (target TURBOFAN) - took 0.014, 0.965, 0.053 ms]
[completed optimizing 0x0f80ef1535d1 <JSFunction scale </app/lib/scale.js> (sfi = 0x261ac285bbd1)> (target TURBOFAN)]
--- FUNCTION SOURCE (/app/inline-cross.js:loop) id{1,-1} start{2284} ---
(n) {
  let s = 0;
  for (let i = 0; i < n; i++) {
    s = (s + scale(i & 1023)) | 0;   // [bailout (kind: fake in a comment): begin. deoptimizing <JSFunction x (sfi = 0x1)>
  }
  return s;
}
--- END ---
--- FUNCTION SOURCE (/app/lib/scale.js:scale) id{1,0} start{113} ---
(v) {
  let r = v * 3 + 1;
  return r & 0xffff;
}
--- END ---
INLINE (scale) id{1,0} AS 0 AT <-1:2426>
[completed compiling 0x0f80ef150c81 <JSFunction loop </app/inline-cross.js> (sfi = 0x261ac285a949)> (target TURBOFAN) OSR - took 0.004, 1.441, 0.108 ms]
[bailout (kind: deopt-eager, reason: wrong map): begin. deoptimizing 0x0e7720e8f399 <JSFunction outer </app/deopt-inlined.js> (sfi = 0x3c26df8da451)>, 0x3c26df8dbec1 <Code TURBOFAN>, opt id 0, bytecode offset 0, deopt exit 3, FP to SP delta 48, caller SP 0x7ffe027dceb0, pc 0x7f14]
            ;;; deoptimize at </app/deopt-inlined.js:4:12> inlined at </app/deopt-inlined.js:10:14>
  reading input frame outer => bytecode_offset=22, args=2, height=5, retval=0(#0); inputs:
      0: 0x0e7720e8f399 ;  [fp -  16]  0x0e7720e8f399 <JSFunction outer (sfi = 0x3c26df8da451)>
[bailout end. took 0.044 ms]
[marking dependent code 0x26e9f98c1e19 <Code TURBOFAN> (0x12c59d668059 <SharedFunctionInfo sumArr>[marking dependent code 0x2252a438daa1 <Code TURBOFAN> (0x12c59d667fe9 <SharedFunctionInfo>
[marking 0x0b <JSFunction __hotpathV8ProbeLoop </app/x.js> (sfi = 0x0c)> for optimization to TURBOFAN, ConcurrencyMode::kConcurrent, reason: hot and stable]
`;

const NODE24 = `[marking 0x090642317079 <JSFunction inner </app/deopt-inlined.js> (sfi = 0x191cfee17011)> for optimization to MAGLEV, ConcurrencyMode::kConcurrent, reason: hot and stable]
[completed compiling 0x090642317079 <JSFunction inner </app/deopt-inlined.js> (sfi = 0x191cfee17011)> (target MAGLEV) - took 0.001, 0.525, 0.015 ms]
[completed compiling 0x003348818ba1 <JSFunction loop </app/inline-cross.js> (sfi = 0x406054d74b9)> (target TURBOFAN_JS) OSR - took 0.019, 2.078, 0.121 ms]
[bailout (kind: deopt-eager, reason: prepare for on stack replacement (OSR)): begin. deoptimizing 0x003348818ba1 <JSFunction loop </app/inline-cross.js> (sfi = 0x406054d74b9)>, 0x10f85c8c2fc9 <Code MAGLEV>, opt id 2, bytecode offset 29, deopt exit 1]
            ;;; deoptimize at </app/inline-cross.js:16:3>
[bailout end. took 0.041 ms]
[bailout (kind: deopt-eager, reason: wrong map): begin. deoptimizing 0x090642317079 <JSFunction inner </app/deopt-inlined.js> (sfi = 0x191cfee17011)>, 0x01a92c540f19 <Code MAGLEV>, opt id 0, bytecode offset 0, deopt exit 0]
            ;;; deoptimize at </app/deopt-inlined.js:4:12>
[bailout end. took 0.052 ms]
[marking 0x090642316cb1 <JSFunction <node:internal/x> (sfi = 0x191cfee16fa1)> for optimization to MAGLEV, ConcurrencyMode::kConcurrent, reason: hot and stable]
`;

describe('V8 code-trace parser', () => {
  it('reads optimizations, TurboFan compiles with their inlinees, and skips printed sources', () => {
    const t = parseTrace(NODE20);
    const scale = t.functions.get('0x261ac285bbd1')!;
    assert.deepEqual({ name: scale.name, file: scale.file, marked: scale.marked, compiled: scale.compiled, optimized: scale.optimized, last: scale.last },
      { name: 'scale', file: '/app/lib/scale.js', marked: 1, compiled: 1, optimized: 1, last: 'TurboFan' });
    const loop = t.functions.get('0x261ac285a949')!;
    assert.equal(loop.compiled, 1);
    assert.equal(loop.last, undefined, 'an OSR compile is not the function\'s own entry tier');
    assert.equal(t.compiles.length, 2);
    const [first, second] = t.compiles;
    assert.deepEqual(first.outer, { file: '/app/lib/scale.js', name: 'scale', start: 113, lineSpan: 4 });
    assert.deepEqual(second.outer, { file: '/app/inline-cross.js', name: 'loop', start: 2284, lineSpan: 7 });
    assert.equal(second.inlinees.length, 1);
    assert.equal(second.inlinees[0].callee.name, 'scale');
    assert.equal(second.inlinees[0].callSiteOffset, 2426);
    assert.equal(second.inlinees[0].callerSourceId, -1);
    // The fake bailout inside the printed source is source text, not an event.
    assert.ok(!t.deopts.some((d) => d.name === 'x'));
  });

  it('reads deopts with their positions (innermost first) and dependency invalidations', () => {
    const t = parseTrace(NODE20);
    const wrongMap = t.deopts.find((d) => d.reason === 'wrong map')!;
    assert.equal(wrongMap.name, 'outer');
    assert.equal(wrongMap.codeKind, 'TURBOFAN');
    assert.deepEqual(wrongMap.frames, [{ file: '/app/deopt-inlined.js', line: 4, column: 12 }, { file: '/app/deopt-inlined.js', line: 10, column: 14 }]);
    const deps = t.deopts.filter((d) => d.kind === 'dependency');
    assert.deepEqual(deps.map((d) => [d.sfi, d.name]), [['0x12c59d668059', 'sumArr'], ['0x12c59d667fe9', '']]);
  });

  it('never reports Hotpath\'s own probe functions', () => {
    const t = parseTrace(NODE20);
    assert.ok(![...t.functions.values()].some((f) => f.name.startsWith('__hotpathV8Probe')));
  });

  it('reads Node 24 (Maglev, TURBOFAN_JS) and labels OSR bookkeeping', () => {
    const t = parseTrace(NODE24);
    assert.equal(t.functions.get('0x191cfee17011')!.last, 'deoptimized');
    const osr = t.deopts.find((d) => d.name === 'loop')!;
    assert.ok(isOsrReason(osr.reason));
    assert.equal(osr.codeKind, 'MAGLEV');
    // Its loop's on-stack-replacement code is TurboFan's: the tier the code it inlined ran at (the function's own tier is not set by it).
    const loop = [...t.functions.values()].find((f) => f.name === 'loop' && f.sfi === '0x406054d74b9')!;
    assert.equal(loop.lastOsr, 'TurboFan');
    assert.equal(loop.last, undefined);
    assert.ok(!isOsrReason('wrong map'));
    // Anonymous function in a node: script: the name is empty, the script is the <…> part.
    const anon = t.functions.get('0x191cfee16fa1')!;
    assert.deepEqual([anon.name, anon.file], ['', 'node:internal/x']);
  });

  it('parses the same text fed in arbitrary chunks', () => {
    const p = new TraceParser();
    for (let i = 0; i < NODE20.length; i += 37) p.push(NODE20.slice(i, i + 37));
    const chunked = p.finish();
    const whole = parseTrace(NODE20);
    assert.deepEqual(chunked.deopts, whole.deopts);
    assert.deepEqual(chunked.compiles, whole.compiles);
  });
});

describe('deopt trace lines V8 ends on the app\'s stdout', () => {
  it('counts each "marking dependent code" record whose end is missing from the file, also when the next one follows on its line', () => {
    const file = '[marking dependent code 0x26e9 <Code TURBOFAN> (0x12c5 <SharedFunctionInfo sumArr>[marking dependent code 0x2252 <Code TURBOFAN> (0x12c5 <SharedFunctionInfo>\n' +
      '[marking dependent code 0x3333 <Code TURBOFAN> (0x12c6 <SharedFunctionInfo f>) (opt id 4) for deoptimization, reason: code dependencies]\n';
    assert.equal(strayDependencyTails(file), 2);
    assert.equal(strayDependencyTails(NODE20), strayDependencyTails(NODE20.replace(/\[marking dependent code[^\n]*/g, '')) + (NODE20.match(/\[marking dependent code /g) ?? []).length);
    assert.equal(strayDependencyTails(''), 0);
  });
});

describe('TurboFan inlining trace (stdout)', () => {
  it('keeps refusals with a readable reason, across chunk boundaries', () => {
    const r = new InliningTraceReader();
    const text = 'Considering 0x11846190 {0x03d8d5ca2f39 <SharedFunctionInfo fib>} for inlining with 0x11846348 {0x03d8d5ca60f9 <FeedbackVector[8]>}\n' +
      'Cannot consider 0x11845e98 {0x03d8d5ca2ee9 <SharedFunctionInfo big>} for inlining (reason: 5)\n' +
      'Cannot consider 0x1 {0x2 <SharedFunctionInfo audit>} for inlining (reason: 6)\n';
    r.push(text.slice(0, 150));
    r.push(text.slice(150));
    const refusals = r.result();
    assert.equal(refusals.length, 2);
    assert.equal(refusals[0].sfi, '0x03d8d5ca2ee9');
    assert.match(refusals[0].reason, /inlining limit.*460/);
    assert.match(refusals[1].reason, /break points/);
  });

  it('tells V8\'s trace lines from the app\'s own output', () => {
    assert.ok(isV8TraceLine('Inlining small function(s) at call site #45:JSCall'));
    assert.ok(isV8TraceLine(') (opt id 36) for deoptimization, reason: code dependencies]'));
    assert.ok(isV8TraceLine('  - target: 0x1188e3f8 {0x03d8d5ca46f9 <SharedFunctionInfo scale>}, bytecode size: 52'));
    assert.ok(!isV8TraceLine('server listening on 3000'));
    assert.ok(!isV8TraceLine('Considering the options…'));
  });
});
