/**
 * Inlined callees in the flamegraph, in headless Chromium: their frames are drawn and marked (the bar
 * on the left edge, the tooltip, the legend), and the page's search, sandwich and differential view give
 * a function the same share the CLI and the editor give it — on a hand-built profile with known numbers,
 * and on real recordings of an app whose hot callee V8 inlines across files (`hotpath profile --script`,
 * its standalone report and `report --html --diff`).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { renderReportHtml } from '../../src/cli/htmlReport';
import { attributeProfile } from '../../src/core/attribution';
import { buildFlamePayload } from '../../src/core/flame';
import { buildAllocationModel } from '../../src/core/memory/heapProfile';
import { allocationFlamePayload } from '../../src/core/memory/flame';
import { initMessages } from '../../src/shared/protocol';
import { runCli } from '../helpers/cli';
import { fn, synthModel } from '../unit/attribution/synth';
import { APP, body, callLine, moduleFrame, quote, quoteAndTwice, signals } from '../unit/flame/inlinedProfiles';
import { hostPageHtml, launch, openReport, pixelAt, RESULTS, screenshot } from './chromium';

const APPS = path.join(__dirname, 'apps');

interface Box { name: string; frame: number; x: number; y: number; w: number; h: number; inlined: boolean; matched: boolean }
const boxes = (page: Page, pane = 'main'): Promise<Box[]> => page.evaluate((p) => (globalThis as any).__hotpath.boxes(p), pane);

async function hoverText(page: Page, box: Box): Promise<string> {
  await page.mouse.move(box.x + Math.min(box.w / 2, 60), box.y + box.h / 2);
  await page.waitForSelector('#hp-tooltip:not([hidden])');
  return (await page.textContent('#hp-tooltip')) ?? '';
}

/** Types into the search box and returns the share the page reports (percent). */
async function searchShare(page: Page, text: string): Promise<number> {
  await page.fill('input[type="search"]', text);
  await page.waitForFunction(() => (document.querySelector('.hp-search-result') as HTMLElement)?.dataset.sharePct !== undefined && (globalThis as any).__hotpath.viewState.search !== '');
  const share = await page.$eval('.hp-search-result', (e) => Number((e as HTMLElement).dataset.sharePct));
  return share;
}

const hex = ([r, g, b]: number[]) => `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
const cssVar = (page: Page, name: string) => page.evaluate((n) => getComputedStyle(document.body).getPropertyValue(n).trim().toLowerCase(), name);

describe('flamegraph: inlined frames in Chromium', function () {
  this.timeout(180_000);
  let browser: Browser;
  let tmp: string;

  before(async () => {
    browser = await launch();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-browser-inlined-'));
    fs.mkdirSync(RESULTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  describe('a hand-built profile: quote with lineTotal inlined (70 ms), and lineTotal called from twice (9 ms)', () => {
    let report: string;
    let expectedPct: number;

    before(async () => {
      const model = synthModel(quoteAndTwice({ quoteOwn: 20, inlinedBody: 70, twiceOwn: 10, lineTotalOwn: 9 }));
      const attr = await attributeProfile(model, { v8: signals() });
      const id = attr.functions.findIndex((f) => f.name === 'lineTotal');
      expectedPct = (100 * attr.totalUs[id]) / model.durationUs;
      report = path.join(tmp, 'inlined.html');
      fs.writeFileSync(report, renderReportHtml(buildFlamePayload(model, { attribution: attr })));
    });

    for (const scheme of ['light', 'dark'] as const) {
      it(`${scheme}: the inlined frame is drawn under its caller, marked by its bar, its tooltip and the legend`, async () => {
        const { page, errors } = await openReport(browser, report, { colorScheme: scheme });
        const drawn = await boxes(page);
        const q = drawn.find((b) => b.name === 'quote')!;
        const inl = drawn.filter((b) => b.name === 'lineTotal' && b.inlined);
        assert.equal(inl.length, 1, JSON.stringify(drawn.map((b) => [b.name, b.inlined])));
        assert.ok(drawn.some((b) => b.name === 'lineTotal' && !b.inlined), 'lineTotal\'s own frame under twice is not marked');
        assert.ok(Math.abs(inl[0].y - q.y) >= inl[0].h && Math.abs(inl[0].x - q.x) < 1, 'a row above quote, from its left edge');
        // The bar: the marker colour at the box's left edge, the fill colour further right.
        assert.equal(hex(await pixelAt(page, inl[0].x + 1.5, inl[0].y + inl[0].h / 2)), await cssVar(page, '--hp-deopt'));
        assert.notEqual(hex(await pixelAt(page, inl[0].x + inl[0].w - 4, inl[0].y + inl[0].h - 3)), await cssVar(page, '--hp-deopt'));
        const text = await hoverText(page, inl[0]);
        assert.match(text, /Inlined by V8 into quote: V8 charged this time to quote's frame/);
        assert.match(text, /Self 70(\.0)? ms/);
        assert.match((await page.textContent('.hp-legend'))!, /inlined: code V8 ran inside its caller's frame/);
        await page.mouse.move(5, 5);
        await screenshot(page, `inlined-${scheme}`);
        assert.deepEqual(errors, []);
        await page.close();
      });
    }

    it('search and sandwich give lineTotal the editor\'s share: its inlined and its own frames', async () => {
      const { page, errors } = await openReport(browser, report);
      const share = await searchShare(page, 'lineTotal');
      assert.ok(Math.abs(share - expectedPct) < 0.01, `search ${share}% vs attribution ${expectedPct}%`);
      assert.match((await page.textContent('.hp-search-result'))!, /^1 function · /, 'the inlined frames are lineTotal, not another function');
      // Sandwich from the inlined frame: the callees root is lineTotal with all of its time.
      const inl = (await boxes(page)).find((b) => b.name === 'lineTotal' && b.inlined)!;
      await page.mouse.click(inl.x + Math.min(20, inl.w / 2), inl.y + inl.h / 2);
      await page.click('button[data-view="sandwich"]');
      await page.waitForFunction(() => (globalThis as any).__hotpath.boxes('callees')[0]?.name === 'lineTotal');
      const root = (await boxes(page, 'callees'))[0];
      assert.match(await hoverText(page, root), /Total 79(\.0)? ms/);
      const callers = (await boxes(page, 'callers')).map((b) => b.name);
      assert.ok(callers.includes('quote') && callers.includes('twice'), callers.join());
      await screenshot(page, 'inlined-sandwich');
      assert.deepEqual(errors, []);
      await page.close();
    });

    it('a payload sent in chunks (VS Code) marks the same frames', async () => {
      const { page: a } = await openReport(browser, report);
      const payloadHtml = fs.readFileSync(report, 'utf8');
      assert.ok(payloadHtml.length > 0);
      const hosted = path.join(tmp, 'inlined-hosted.html');
      const model = synthModel([moduleFrame([fn('quote', APP, quote[0], quote[1], { ticks: { [callLine]: 20, [body]: 70 } })])]);
      const attr = await attributeProfile(model);
      fs.writeFileSync(hosted, hostPageHtml(initMessages(buildFlamePayload(model, { attribution: attr }), false, undefined, { chunkBytes: 256 })));
      const { page: b, errors } = await openReport(browser, hosted);
      const inl = (await boxes(b)).filter((x) => x.inlined).map((x) => x.name);
      assert.deepEqual(inl, ['lineTotal']);
      assert.match(await hoverText(b, (await boxes(b)).find((x) => x.inlined)!), /Inlined \(inferred\): V8 charged this time to quote's frame/);
      assert.deepEqual(errors, []);
      await a.close();
      await b.close();
    });
  });

  it('the allocation flamegraph: bytes placed on an inlined callee are its frame, under the frame V8 charged', async () => {
    const SALES = path.resolve(__dirname, '../fixtures/npm-apps/orders-api/lib/sales.js');
    const text = fs.readFileSync(SALES, 'utf8').split('\n');
    const pos = (name: string) => { const i = text.findIndex((l) => l.includes(`function ${name}(`)); return { lineNumber: i, columnNumber: text[i].indexOf('(', text[i].indexOf('function')) }; };
    let id = 1;
    const node = (name: string, selfSize: number) => ({ id: id++, callFrame: { functionName: name, scriptId: '3', url: `file://${SALES}`, ...pos(name) }, selfSize, children: [] });
    const head = { id: id++, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, selfSize: 0, children: [node('bestRow', 300_000), node('salesRows', 150_000)] };
    const model = await buildAllocationModel({ head }, { sourceName: 'sales.heapprofile' });
    const payload = allocationFlamePayload(model, { title: 'sales (allocations)', requests: 100, attribution: await attributeProfile(model, { allocations: true }) });
    const report = path.join(tmp, 'sales-allocations.html');
    fs.writeFileSync(report, renderReportHtml(payload));
    const { page, errors } = await openReport(browser, report);
    const drawn = await boxes(page);
    const toRow = drawn.find((b) => b.name === 'toRow')!;
    assert.ok(toRow?.inlined, JSON.stringify(drawn.map((b) => [b.name, b.inlined])));
    const hover = await hoverText(page, toRow);
    assert.match(hover, /Inlined \(inferred\): V8 charged these bytes to bestRow's frame; bestRow's own code allocates nothing, so they are this function's/);
    assert.match(hover, /Allocated here 293 KB \(2\.93 KB\/request/);
    assert.ok(!drawn.some((b) => b.name === 'toRow' && b !== toRow), 'salesRows keeps its bytes: no inlined toRow under it');
    await screenshot(page, 'inlined-allocations');
    assert.deepEqual(errors, []);
    await page.close();
  });

  describe('real recordings: scale() inlined across files into priceAll', () => {
    let runs: { weight: number; profile: string; html: string; scalePct: number; inlinedInto: string[] }[];

    before(async function () {
      this.timeout(120_000);
      runs = [];
      for (const weight of [3, 1]) {
        const r = await runCli(['profile', '--script', '--json', '--out', tmp, '--name', `inline-${weight}`, '--', 'node', path.join(APPS, 'inline-app.js'), String(weight)], { cwd: tmp });
        assert.equal(r.code, 0, r.stderr);
        const out = r.json();
        const scale = out.hotspots.find((h: any) => h.function === 'scale');
        assert.ok(scale, JSON.stringify(out.hotspots.map((h: any) => h.function)));
        runs.push({ weight, profile: out.profilePath, html: out.flamegraphPath, scalePct: scale.totalPct, inlinedInto: scale.inlinedInto ?? [] });
      }
      // What this suite is about: V8 inlined scale (a tiny callee in a hot loop: TurboFan does on every
      // Node this project supports). If it ever did not, the agreement below would hold trivially.
      assert.ok(runs.every((r) => r.inlinedInto.includes('priceAll')), JSON.stringify(runs));
    });

    it('the standalone report\'s search agrees with the CLI\'s share of scale within 1 point, and marks it inlined', async () => {
      for (const run of runs) {
        const { page, errors } = await openReport(browser, run.html);
        const share = await searchShare(page, 'scale');
        assert.ok(Math.abs(share - run.scalePct) <= 1, `weight ${run.weight}: search ${share}% vs CLI ${run.scalePct}%`);
        assert.ok((await boxes(page)).some((b) => b.name === 'scale' && b.inlined), 'scale is drawn as an inlined frame');
        assert.deepEqual(errors, []);
        await page.close();
      }
    });

    it('report --html --diff: the differential view agrees too, and compares scale with scale', async () => {
      const html = path.join(tmp, 'inline-diff.html');
      const r = await runCli(['report', '--html', html, '--diff', runs[0].profile, runs[1].profile], { cwd: tmp });
      assert.equal(r.code, 0, r.stderr);
      const { page, errors } = await openReport(browser, html);
      const share = await searchShare(page, 'scale');
      assert.ok(Math.abs(share - runs[1].scalePct) <= 1, `diff search ${share}% vs CLI ${runs[1].scalePct}%`);
      const scale = (await boxes(page)).find((b) => b.name === 'scale' && b.inlined);
      assert.ok(scale, 'scale is an inlined frame in the differential view');
      // The hover's shares are of this box (scale inlined under priceAll), each side's part of scale's whole
      // share in that recording as the CLI reported it: never above it (an identity, to the hover's rounding),
      // and the before side has time there (a box matched with nothing before reads 0%). Chance of failing
      // on a correct product: 0.
      // (Was: the share fell from weight 3 to weight 1 — a direction two live 800 ms recordings do not always
      // take: census48 run 3 read 49.7% → 58.2% on a busy machine, the product showing both as recorded. Then,
      // this stop, "equal to the CLI's within 1 point": census49 run 1 read 68.4% against the CLI's 70.72% —
      // the rest of scale's time sits in other boxes, e.g. calls made before TurboFan inlined it.)
      const hover = await hoverText(page, scale);
      const m = /Self share ([\d.]+)% before → ([\d.]+)% after \(([+−])/.exec(hover);
      assert.ok(m, hover);
      const [before, after] = [Number(m[1]), Number(m[2])];
      assert.ok(before > 0 && before <= runs[0].scalePct + 0.1 && after <= runs[1].scalePct + 0.1, `hover ${before}% → ${after}% vs CLI ${runs[0].scalePct}% → ${runs[1].scalePct}% (scale's whole share)`);
      if (after !== before) assert.equal(m[3], after < before ? '−' : '+', 'the sign is the change\'s');
      await screenshot(page, 'inlined-diff');
      assert.deepEqual(errors, []);
      await page.close();
    });
  });
});
