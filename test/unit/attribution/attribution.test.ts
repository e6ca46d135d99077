// Attribution on hand-built profiles over real source files: call-site lines, inclusive time without
// double counting, own cost, cross-file inlining placement (with and without V8's facts), packages
// and async origins.
import { strict as assert } from 'node:assert';
import { attributeProfile, attributedLines, packageRows, rankAttributedHotspots, type Attribution } from '../../../src/core/attribution';
import type { ProfileModel } from '../../../src/core/profile';
import type { V8RawSignals } from '../../../src/core/v8/types';
import { anchor, file, fn, lineOf, synthModel, type Frame } from './synth';

const APP = 'app.js';
const PRICING = 'lib/pricing.js';
const at = (rel: string, pattern: RegExp | string) => anchor(rel, pattern);
const moduleFrame = (children: Frame[]) => fn('', APP, 1, 1, { children });

function lineAt(attr: Attribution, rel: string, line: number) {
  return attr.lines.find((l) => l.file === file(rel) && l.line === line);
}
function idOf(attr: Attribution, name: string, rel?: string): number {
  const id = attr.functions.findIndex((f) => f.name === name && (!rel || f.file === file(rel)));
  assert.ok(id >= 0, `${name} is an attributed function`);
  return id;
}

describe('attribution', () => {
  describe('calls into native code (crypto.pbkdf2Sync)', () => {
    let model: ProfileModel;
    let attr: Attribution;
    before(async () => {
      const [l, c] = at(APP, 'function signingKey');
      model = synthModel([moduleFrame([
        fn('signingKey', APP, l, c, { ticks: { [l + 1]: 1 }, children: [
          fn('pbkdf2Sync', 'node:internal/crypto/pbkdf2', 62, 20, { ticks: { 74: 80 }, children: [fn('run', '', 0, 0, { self: 4 })] }),
        ] }),
      ])]);
      attr = await attributeProfile(model);
    });

    it('charges the callee\'s total to the line that makes the call', () => {
      const call = lineAt(attr, APP, lineOf(APP, 'crypto.pbkdf2Sync('));
      assert.ok(call, 'the pbkdf2Sync line has a line record');
      assert.equal(call.totalUs, 85_000);
      assert.equal(call.ownUs, 85_000, 'non-user callees are the line\'s own cost');
      assert.equal(call.calls[0].callee, idOf(attr, 'pbkdf2Sync'));
    });

    it('own cost of the user function: its self time plus the Node and native code it calls directly', () => {
      const id = idOf(attr, 'signingKey', APP);
      assert.equal(attr.selfUs[id], 1000);
      assert.equal(attr.ownUs[id], 85_000);
      const [top] = attr.ownParts.get(id)!;
      assert.equal(attr.functions[top.callee].name, 'pbkdf2Sync');
      assert.equal(top.us, 84_000);
      const [hot] = rankAttributedHotspots(model, attr, 5);
      assert.equal(hot.function, 'signingKey', 'ranked first by own cost although its self time is tiny');
      assert.equal(hot.ownParts[0].callLine, lineOf(APP, 'crypto.pbkdf2Sync('));
    });

    it('names the user caller of the native hotspot with the call-site line', () => {
      const rows = rankAttributedHotspots(model, attr, 5);
      const native = rows.find((h) => h.function === 'pbkdf2Sync')!;
      assert.deepEqual([native.userCaller?.function, native.userCaller?.line, native.userCaller?.functionLine], ['signingKey', lineOf(APP, 'crypto.pbkdf2Sync('), at(APP, 'function signingKey')[0]]);
    });
  });

  describe('call sites', () => {
    it('several calls of the same callee: no line gets the time; the function lists the candidates', async () => {
      const [l, c] = at(APP, 'function twice');
      const [pl, pc] = at(PRICING, 'function lineTotal');
      const model = synthModel([moduleFrame([fn('twice', APP, l, c, { children: [fn('lineTotal', PRICING, pl, pc, { ticks: { [pl + 3]: 10 } })] })])]);
      const attr = await attributeProfile(model);
      const twice = idOf(attr, 'twice', APP);
      const site = attr.callSites.get(`${twice}:${idOf(attr, 'lineTotal', PRICING)}`);
      assert.equal(site?.status, 'ambiguous');
      assert.deepEqual(site?.status === 'ambiguous' ? site.lines.map((x) => x.line) : [], [lineOf(APP, 'const a = lineTotal'), lineOf(APP, 'const b = lineTotal')]);
      assert.equal(lineAt(attr, APP, lineOf(APP, 'const a = lineTotal')), undefined);
      assert.equal(lineAt(attr, APP, lineOf(APP, 'const b = lineTotal')), undefined);
      assert.equal(attr.unplacedCalls.get(twice)?.[0].us, 10_000);
    });

    it('callbacks: defined in the call (map), passed by name (forEach), constructors and tagged templates', async () => {
      const [l, c] = at(APP, 'function withCallbacks');
      const arrow = lineOf(APP, 'items.map((item)');
      const [rl, rc] = at('lib/render.js', 'function row');
      const [cl, cc] = at('lib/render.js', 'constructor(');
      const [hl, hc] = at('lib/render.js', 'html(');
      const arrowColumn = anchor(APP, 'items.map(')[1] + 1; // `(item) =>` starts after `map(`
      const model = synthModel([moduleFrame([fn('withCallbacks', APP, l, c, { children: [
        fn('', APP, arrow, arrowColumn, { ticks: { [arrow]: 3 } }),
        fn('row', 'lib/render.js', rl, rc, { ticks: { [rl + 1]: 4 } }),
        fn('Page', 'lib/render.js', cl, cc, { ticks: { [cl + 1]: 5 } }),
        fn('html', 'lib/render.js', hl, hc, { ticks: { [hl + 1]: 6 } }),
      ] })])]);
      const attr = await attributeProfile(model);
      assert.equal(lineAt(attr, APP, arrow)?.totalUs, 3000, 'the arrow passed to map is called from the map line');
      assert.equal(lineAt(attr, APP, lineOf(APP, 'items.forEach(render.row)'))?.totalUs, 4000, 'row passed by name to forEach');
      assert.equal(lineAt(attr, APP, lineOf(APP, 'new render.Page'))?.totalUs, 11_000, 'new Page(…) and its tagged template share the line');
    });

    it('recursion: a line on the stack more than once counts its time once', async () => {
      const [l, c] = at(APP, 'function fib');
      const body = l + 1;
      const leaf = fn('fib', APP, l, c, { ticks: { [body]: 5 } });
      const mid = fn('fib', APP, l, c, { ticks: { [body]: 3 }, children: [leaf] });
      const top = fn('fib', APP, l, c, { ticks: { [body]: 2 }, children: [mid] });
      const attr = await attributeProfile(synthModel([moduleFrame([top])]));
      const line = lineAt(attr, APP, body)!;
      assert.equal(line.selfUs, 10_000);
      assert.equal(line.totalUs, 10_000, 'total of a recursive line = the outermost frame\'s total, not the sum over frames');
    });
  });

  describe('cross-file inlining', () => {
    const quote = at(APP, 'function quote');
    const lineTotal = at(PRICING, 'function lineTotal');
    const callLine = lineOf(APP, 'sum += lineTotal(item)');
    // V8 charged lineTotal's loop (pricing.js lines 5–7) to quote's frame, with pricing.js's line numbers.
    const loop = lineOf(PRICING, 'for (let unit');
    const body = lineOf(PRICING, 'total += item.unitPrice');
    const close = lineOf(PRICING, '  }');
    const frames = (extra: Record<number, number> = {}) => synthModel([moduleFrame([fn('quote', APP, quote[0], quote[1], { ticks: { [loop]: 10, [body]: 60, [close]: 5, [callLine]: 2, ...extra } })])]);
    const signals = (): V8RawSignals => {
      const quoteRef = { name: 'quote', file: file(APP), line: quote[0], column: quote[1] };
      const totalRef = { name: 'lineTotal', file: file(PRICING), line: lineTotal[0], column: lineTotal[1] };
      return {
        version: 1, collection: { collected: true, nodeVersion: 'v20.0.0' }, mode: 'launch',
        functions: [{ ...quoteRef, optimizations: 1, marked: 1, aborted: [], deopts: [], inlined: [totalRef], inlinedInto: [], inlineSites: [{ callee: totalRef, caller: quoteRef, line: callLine, column: 12 }] }],
      };
    };

    it('with V8\'s inlining facts: the callee\'s lines are painted in its own file, never in the caller\'s', async () => {
      const model = frames();
      const attr = await attributeProfile(model, { v8: signals() });
      for (const [line, ms] of [[loop, 10], [body, 60], [close, 5]]) {
        const placed = lineAt(attr, PRICING, line);
        assert.equal(placed?.selfUs, ms * 1000, `pricing.js:${line}`);
        assert.equal(placed?.placement, 'inlined');
        assert.equal(attr.functions[placed!.inlinedInto!].name, 'quote');
      }
      // app.js lines 5 and 6 are blank and a comment; line 7 is quote's header: none may get the time.
      for (const line of [loop, body, close]) assert.equal(lineAt(attr, APP, line), undefined, `app.js:${line} gets nothing`);
      const id = idOf(attr, 'lineTotal', PRICING);
      assert.equal(attr.functions[id].model, -1, 'lineTotal has no frame of its own: it ran only inlined');
      assert.equal(attr.selfUs[id], 75_000);
      assert.equal(lineAt(attr, APP, callLine)?.totalUs, 77_000, 'the call line carries the inlined callee\'s time and its own');
      const rows = attributedLines(model, attr);
      assert.ok(rows.every((r) => !(r.file === file(APP) && [loop, body, close].includes(r.line))));
    });

    it('without V8\'s facts: placed as inferred from the callee the source names', async () => {
      const attr = await attributeProfile(frames());
      assert.equal(lineAt(attr, PRICING, body)?.placement, 'inferred');
      assert.equal(lineAt(attr, PRICING, body)?.selfUs, 60_000);
    });

    it('without V8\'s facts, an inference that explains too little of the foreign time is not used', async () => {
      // Most of the foreign ticks are on line 400, which no callee of quote has: they are someone else's.
      const attr = await attributeProfile(frames({ 400: 300 }));
      assert.equal(lineAt(attr, PRICING, body), undefined);
      const notPlaced = attr.notPlaced.get(idOf(attr, 'quote', APP));
      assert.ok(notPlaced && notPlaced.us >= 300_000 + 60_000, JSON.stringify(notPlaced));
    });
  });

  describe('dependencies and async origins', () => {
    it('own cost stops at the user callback a dependency calls back; packages count time once per stack', async () => {
      const [l, c] = at(APP, 'function quote');
      const lodash = 'node_modules/lodash/lodash.js';
      const model = synthModel([moduleFrame([fn('quote', APP, l, c, { ticks: { [l + 2]: 1 }, children: [
        fn('map', lodash, 100, 10, { ticks: { 101: 5 }, children: [
          fn('baseMap', lodash, 200, 10, { ticks: { 201: 4 }, children: [fn('', APP, l + 3, 10, { ticks: { [l + 3]: 7 } })] }),
        ] }),
      ] })])]);
      const attr = await attributeProfile(model);
      assert.equal(attr.ownUs[idOf(attr, 'quote', APP)], 10_000, 'self 1 + lodash 9; the callback\'s 7 are its own');
      const [pkg] = packageRows(model, attr);
      assert.deepEqual([pkg.package, pkg.selfMs, pkg.totalMs], ['lodash', 9, 16]);
    });

    it('dependency code with no user frame on the stack says what started it', async () => {
      const model = synthModel([fn('processTicksAndRejections', 'node:internal/process/task_queues', 67, 35, { children: [
        fn('handleDataRow', 'node_modules/pg/lib/client.js', 300, 20, { children: [fn('parseRow', 'node_modules/pg-types/lib/parse.js', 10, 5, { ticks: { 11: 20 } })] }),
      ] })]);
      const attr = await attributeProfile(model);
      const row = rankAttributedHotspots(model, attr, 5).find((h) => h.function === 'parseRow')!;
      assert.equal(row.userCaller, null);
      assert.equal(row.asyncContext, 'runs from a promise or process.nextTick callback of pg');
      assert.deepEqual(packageRows(model, attr).map((p) => [p.package, p.totalMs]), [['pg', 20], ['pg-types', 20]]);
    });

    it('a dependency function that only ran inlined has its host\'s async origin (no frame of its own to learn it from)', async () => {
      const ARRAY = 'node_modules/postgres-array/index.js';
      const parse = at(ARRAY, 'function parse');
      const next = at(ARRAY, 'function nextCharacter');
      const nextBody = lineOf(ARRAY, 'const character = state.source');
      const loop = lineOf(ARRAY, 'const c = nextCharacter(state)');
      // V8 charged nextCharacter's line to parse's frame (it ran inlined there).
      const model = synthModel([fn('processTicksAndRejections', 'node:internal/process/task_queues', 67, 35, { children: [
        fn('handleDataRow', 'node_modules/pg/lib/client.js', 300, 20, { children: [fn('parse', ARRAY, parse[0], parse[1], { ticks: { [loop]: 5, [nextBody]: 20 } })] }),
      ] })]);
      const parseRef = { name: 'parse', file: file(ARRAY), line: parse[0], column: parse[1] };
      const nextRef = { name: 'nextCharacter', file: file(ARRAY), line: next[0], column: next[1] };
      const v8: V8RawSignals = {
        version: 1, collection: { collected: true, nodeVersion: 'v22.0.0' }, mode: 'launch',
        functions: [{ ...parseRef, optimizations: 1, marked: 1, aborted: [], deopts: [], inlined: [nextRef], inlinedInto: [], inlineSites: [{ callee: nextRef, caller: parseRef, line: loop, column: 15 }] }],
      };
      const attr = await attributeProfile(model, { v8 });
      const rows = rankAttributedHotspots(model, attr, 10);
      const inlined = rows.find((h) => h.function === 'nextCharacter');
      assert.ok(inlined, JSON.stringify(rows.map((h) => [h.function, h.file, h.line, h.selfMs, h.inlinedInto, h.asyncContext])));
      assert.deepEqual(inlined.inlinedInto, ['parse']);
      const host = rows.find((h) => h.function === 'parse')!;
      assert.equal(host.asyncContext, 'runs from a promise or process.nextTick callback of pg');
      assert.deepEqual([inlined.userCaller, inlined.asyncContext], [null, host.asyncContext]);
    });
  });
});
