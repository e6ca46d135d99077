/**
 * The flamegraph's sandwich colours, the V8 tier mode with its deopt marker, and chunked host messages,
 * in headless Chromium on real recordings, checked through the page (boxes, canvas pixels, text).
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { renderReportHtml } from '../../src/cli/htmlReport';
import { buildFlamePayload } from '../../src/core/flame';
import { loadProfile, type ProfileModel } from '../../src/core/profile';
import { addV8FlameExtras } from '../../src/core/v8';
import type { V8FunctionSignals } from '../../src/core/v8/types';
import type { FlamePayload } from '../../src/shared/flame/payload';
import { initMessages } from '../../src/shared/protocol';
import { runCli } from '../helpers/cli';
import { diffProfile } from './diffProfile';
import { boxOf, type DrawnBox, drawnBoxes, hostPageHtml, launch, openReport, pixelAt, redrawn, RESULTS, ROOT, screenshot } from './chromium';
import { formatPct } from '../../src/shared/text/numbers';

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'profiles');
const APPS = path.join(__dirname, 'apps');

function recordProfile(script: string, args: string[], out: string): string {
  const run = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-interval', '200', '--cpu-prof-dir', path.dirname(out), '--cpu-prof-name', path.basename(out), script, ...args], { cwd: path.dirname(script), encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return out;
}

async function hoverText(page: Page, box: DrawnBox): Promise<string> {
  await page.mouse.move(box.x + Math.min(box.w / 2, 40), box.y + box.h / 2);
  await page.waitForSelector('#hp-tooltip:not([hidden])');
  return (await page.textContent('#hp-tooltip')) ?? '';
}

/** The widest drawn box of `name` in `pane`, waiting until the pane draws it. */
async function waitBox(page: Page, name: string, pane = 'main'): Promise<DrawnBox> {
  await page.waitForFunction(([n, p]) => (globalThis as any).__hotpath.boxes(p).some((b: any) => b.name === n), [name, pane] as const);
  return boxOf(page, name, pane);
}

/** Select a function in the flamegraph (click zooms and selects it), then open its sandwich. */
async function sandwichOf(page: Page, name: string): Promise<void> {
  const box = await waitBox(page, name);
  await page.mouse.click(box.x + Math.min(10, box.w / 2), box.y + box.h / 2);
  await page.click('button[data-view="sandwich"]');
  await page.waitForFunction((n) => (globalThis as any).__hotpath.boxes('callees')[0]?.name === n, name);
}

const hex = ([r, g, b]: number[]) => `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
const cssVar = (page: Page, name: string) => page.evaluate((n) => getComputedStyle(document.body).getPropertyValue(n).trim().toLowerCase(), name);
/** A pixel inside the box's fill, away from its label (left) and its marker (top right). */
const fillPixel = (page: Page, b: DrawnBox, pane = 'main') => pixelAt(page, b.x + b.w - 4, b.y + b.h - 3, pane);

describe('flamegraph views in Chromium', function () {
  this.timeout(120_000);
  let browser: Browser;
  let tmp: string;

  before(async () => {
    browser = await launch();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-browser-views-'));
    fs.mkdirSync(RESULTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('sandwich: callers are coloured by the share of the selected function\'s time they account for', async () => {
    // The recording is the input, not the product: heavyCaller calls shared three times as often, so
    // 3/4 of shared's time comes through it on an idle machine (0.746 measured). The profiler samples wall
    // time, so on a machine busy enough to take the CPU away mid-call the split can move (0.594 was seen in a
    // CI run at load average ~8): record again, up to three times, until the recording has the scenario
    // this test needs (heavy over 0.6). What is asserted below is checked against the recording used.
    const profile = path.join(tmp, 'callers.cpuprofile');
    const report = path.join(tmp, 'callers.html');
    let model!: Awaited<ReturnType<typeof loadProfile>>;
    let heavyShare = 0;
    let lightShare = 0;
    for (let attempt = 1; attempt <= 3; attempt++) {
      fs.rmSync(profile, { force: true });
      recordProfile(path.join(APPS, 'callers-app.js'), [], profile);
      model = await loadProfile(profile, { sourceMaps: false });
      const fn = (name: string) => model.functions.findIndex((f) => f.name === name);
      // The truth from the model: shared's time by direct caller.
      const via = (caller: number) => {
        let us = 0;
        for (let v = 0; v < model.nodeCount; v++) if (model.nodes.func[v] === fn('shared') && model.nodes.func[model.nodes.parent[v]] === caller) us += model.nodes.totalUs[v];
        return us / model.functionTotalUs[fn('shared')];
      };
      heavyShare = via(fn('heavyCaller'));
      lightShare = via(fn('lightCaller'));
      if (heavyShare > 0.6 && lightShare > 0.1) break;
      console.log(`      # recording ${attempt}: shares ${heavyShare.toFixed(3)} / ${lightShare.toFixed(3)}, recorded again`);
    }
    assert.ok(heavyShare > 0.6 && lightShare > 0.1, `recorded shares ${heavyShare} / ${lightShare} in three recordings`);
    assert.equal((await runCli(['report', '--html', report, profile])).code, 0);
    for (const scheme of ['light', 'dark'] as const) {
      const { page, errors } = await openReport(browser, report, { colorScheme: scheme });
      await sandwichOf(page, 'shared');
      const heavy = await waitBox(page, 'heavyCaller', 'callers');
      const light = await waitBox(page, 'lightCaller', 'callers');
      const root = await waitBox(page, 'shared', 'callers');
      // Heat buckets grow with the share: the function itself (100%) > heavyCaller > lightCaller.
      assert.ok(root.bucket > heavy.bucket && heavy.bucket > light.bucket, `buckets ${root.bucket} > ${heavy.bucket} > ${light.bucket}`);
      assert.notDeepEqual(await fillPixel(page, heavy, 'callers'), await fillPixel(page, light, 'callers'));
      const pct = (v: number) => formatPct(v * 100);
      const heavyText = await hoverText(page, heavy);
      assert.ok(heavyText.includes(`Calls into shared:`) && heavyText.includes(`= ${pct(heavyShare)} of shared's time`), heavyText);
      assert.ok((await hoverText(page, light)).includes(`= ${pct(lightShare)} of shared's time`));
      assert.match((await page.textContent('.hp-legend'))!, /Callers \(top\): colour = share of shared's time/);
      // The callees pane keeps self time: shared's own frame there is its self time within its calls.
      assert.match(await hoverText(page, await waitBox(page, 'shared', 'callees')), /Self .* within shared/);
      await screenshot(page, `sandwich-callers-${scheme}`);
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  it('sandwich of a differential report: the change colours carry into callers and callees', async () => {
    // Written, not recorded (diffProfile.ts says why): parseInput 300 → 100 ms, renderOutput 100 → 300 ms.
    const before = diffProfile(path.join(tmp, 'before.cpuprofile'), 300, 100);
    const after = diffProfile(path.join(tmp, 'after.cpuprofile'), 100, 300);
    const report = path.join(tmp, 'diff.html');
    assert.equal((await runCli(['report', '--html', report, '--diff', before, after])).code, 0);
    for (const scheme of ['light', 'dark'] as const) {
      const { page, errors } = await openReport(browser, report, { colorScheme: scheme });
      for (const [name, direction] of [['parseInput', 'faster'], ['renderOutput', 'slower']] as const) {
        await sandwichOf(page, name);
        for (const pane of ['callees', 'callers']) {
          const b = await waitBox(page, name, pane);
          const [r, , bl] = await fillPixel(page, b, pane);
          if (direction === 'faster') assert.ok(bl > r, `${name} in ${pane} is blue (${r},${bl})`);
          else assert.ok(r > bl, `${name} in ${pane} is red (${r},${bl})`);
          assert.match(await hoverText(page, b), direction === 'faster' ? /before → .* after \(−/ : /before → .* after \(\+/);
        }
        if (name === 'renderOutput') await screenshot(page, `diff-sandwich-${scheme}`);
        await page.click('button[data-view="flamegraph"]');
        await page.click('.hp-crumbs button:first-child');
      }
      assert.match((await page.textContent('.hp-legend'))!, /Difference/);
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  describe('colour by V8 tier', () => {
    let model: ProfileModel;
    let report: string;

    before(async () => {
      const file = path.join(FIXTURES, 'cpu-hot.cpuprofile');
      model = await loadProfile(file, { sourceMaps: true, thread: 'main' });
      const payload = buildFlamePayload(model);
      // Known signals through the V8 engineer's own join step (core/v8/flameExtras): the script's top
      // level optimized by TurboFan, hotLoop back in Ignition after two real deopts (the OSR entry must
      // not count). Both frames are wide enough to carry a marker.
      const signals = (tier: V8FunctionSignals['tier'], deopts: V8FunctionSignals['deopts']): V8FunctionSignals => ({ tier, optimizations: 1, deopts, inlinedInto: [], inlined: [] });
      const byFunction = new Map<number, V8FunctionSignals>([
        [model.functions.findIndex((f) => f.name === '' && f.file.endsWith('cpu-hot.js')), signals('TurboFan', [])],
        [model.functions.findIndex((f) => f.name === 'hotLoop'), signals('Ignition', [
          { kind: 'deopt-eager', reason: 'wrong map', file: 'cpu-hot.js', line: 9, column: 5, count: 2, osr: false },
          { kind: 'deopt-eager', reason: 'OSR', file: 'cpu-hot.js', line: 9, column: 5, count: 3, osr: true },
        ])],
      ]);
      assert.ok(![...byFunction.keys()].includes(-1));
      addV8FlameExtras(payload, byFunction);
      report = path.join(tmp, 'tiers.html');
      fs.writeFileSync(report, renderReportHtml(payload));
    });

    for (const scheme of ['light', 'dark'] as const) {
      it(`${scheme}: tier colours from the theme, legend, deopt marker and tooltip`, async () => {
        const { page, errors } = await openReport(browser, report, { colorScheme: scheme });
        const topOf = async () => (await drawnBoxes(page)).find((b) => b.name === '(anonymous)' && b.file.endsWith('cpu-hot.js'))!;
        // The deopt marker shows in every mode, heat included.
        let hot = await waitBox(page, 'hotLoop');
        let top = await topOf();
        assert.ok(hot.marked && !top.marked, 'only hotLoop is marked');
        const options = await page.$$eval('select[aria-label="Colour by"] option', (os) => os.map((o) => (o as HTMLOptionElement).value));
        assert.ok(options.includes('tier'), `tier offered: ${options}`);
        await redrawn(page, () => page.selectOption('select[aria-label="Colour by"]', 'tier'));
        assert.equal(await page.evaluate(() => (globalThis as any).__hotpath.viewState.color), 'tier');
        hot = await boxOf(page, 'hotLoop');
        top = await topOf();
        assert.equal(hex(await fillPixel(page, top)), await cssVar(page, '--hp-tier-turbofan'));
        assert.equal(hex(await fillPixel(page, hot)), await cssVar(page, '--hp-tier-ignition'));
        // A function without signals (Node's module loader) is "unknown".
        assert.equal(hex(await fillPixel(page, await boxOf(page, 'Module._compile'))), await cssVar(page, '--hp-tier-unknown'));
        // The marker: the deopt colour in hotLoop's top-right corner, none in the top level's.
        assert.equal(hex(await pixelAt(page, hot.x + hot.w - 2.5, hot.y + 1.5)), await cssVar(page, '--hp-deopt'));
        assert.equal(hex(await pixelAt(page, top.x + top.w - 2.5, top.y + 1.5)), await cssVar(page, '--hp-tier-turbofan'));
        assert.match(await hoverText(page, hot), /Tier: Ignition \(interpreter\) · 2 deopts/);
        assert.match(await hoverText(page, top), /Tier: TurboFan \(optimizing compiler\) · no deopts/);
        const legend = (await page.textContent('.hp-legend'))!;
        for (const t of ['Ignition', 'Sparkplug', 'Maglev', 'TurboFan', 'Unknown', 'deoptimized']) assert.ok(legend.includes(t), `legend lists ${t}: ${legend}`);
        await page.mouse.move(5, 5);
        await screenshot(page, `tier-${scheme}`);
        assert.deepEqual(errors, []);
        await page.close();
      });
    }

    it('without V8 signals there is no tier mode and no marker', async () => {
      const plain = path.join(tmp, 'plain.html');
      fs.writeFileSync(plain, renderReportHtml(buildFlamePayload(model)));
      const { page, errors } = await openReport(browser, plain);
      const options = await page.$$eval('select[aria-label="Colour by"] option', (os) => os.map((o) => (o as HTMLOptionElement).value));
      assert.deepEqual(options, ['heat', 'category']);
      assert.ok((await drawnBoxes(page)).every((b) => !b.marked));
      assert.doesNotMatch((await page.textContent('.hp-legend'))!, /deoptimized/);
      assert.doesNotMatch(await hoverText(page, await boxOf(page, 'hotLoop')), /Tier:/);
      assert.deepEqual(errors, []);
      await page.close();
    });
  });

  it('a payload sent in many chunks renders exactly like the standalone report', async () => {
    const model = await loadProfile(path.join(FIXTURES, 'deps.cpuprofile'), { sourceMaps: false });
    const payload: FlamePayload = buildFlamePayload(model);
    const standalone = path.join(tmp, 'deps-standalone.html');
    fs.writeFileSync(standalone, renderReportHtml(payload));
    const messages = initMessages(payload, false, undefined, { chunkBytes: 512 });
    const chunks = messages.filter((m) => m.type === 'initChunk').length;
    assert.ok(messages[0].type === 'initBegin' && chunks >= 20, `${chunks} chunks`);
    const hosted = path.join(tmp, 'deps-hosted.html');
    fs.writeFileSync(hosted, hostPageHtml(messages));

    const look = async (file: string) => {
      const { page, errors } = await openReport(browser, file);
      const canvas = () => page.evaluate(() => (document.querySelector('[data-pane="main"] canvas:not(.hp-overlay)') as HTMLCanvasElement).toDataURL());
      const boxes = (await drawnBoxes(page)).map(({ name, frame, x, y, w, bucket }) => ({ name, frame, x, y, w, bucket }));
      const flamegraph = await canvas();
      await redrawn(page, () => page.click('button[data-view="flamechart"]'));
      assert.equal(await page.evaluate(() => (globalThis as any).__hotpath.viewState.view), 'flamechart');
      const chart = await canvas();
      const host = await page.evaluate(() => ({ kind: typeof (globalThis as any).acquireVsCodeApi, posted: (globalThis as any).__posted, log: (globalThis as any).__hostLog }));
      assert.deepEqual(errors, []);
      return { page, boxes, flamegraph, chart, host };
    };
    const a = await look(standalone);
    const b = await look(hosted);
    assert.equal(a.host.kind, 'undefined', 'the standalone report has no host');
    assert.equal(b.host.kind, 'function');
    assert.equal(b.host.posted, messages.length, 'every message was posted');
    assert.deepEqual(b.host.log, [{ type: 'ready' }], 'the page asked for data once and reported no error');
    assert.ok(a.boxes.length > 10);
    assert.deepEqual(b.boxes, a.boxes);
    assert.ok(a.flamegraph === b.flamegraph, 'flamegraph canvases are pixel-identical');
    assert.ok(a.chart === b.chart, 'flame chart canvases are pixel-identical');
    await screenshot(b.page, 'chunked-host-flamechart');
    await a.page.close();
    await b.page.close();
  });

  it('by package: a package\'s frames fold into one frame named after it, with its total', async () => {
    const profile = path.join(FIXTURES, 'deps.cpuprofile');
    const report = path.join(tmp, 'deps.html');
    assert.equal((await runCli(['report', '--html', report, profile])).code, 0);
    const model = await loadProfile(profile, { sourceMaps: false });
    const pkg = model.functions.find((f) => f.category === 'dependency' && f.package)!.package!;
    const { page, errors } = await openReport(browser, report);
    await page.check('#hp-byPackage');
    const box = await waitBox(page, pkg);
    const text = await hoverText(page, box);
    assert.ok(text.includes(pkg), text);
    const boxes = await drawnBoxes(page);
    assert.ok(!boxes.some((b) => model.functions.some((f) => f.package === pkg && f.name && f.name === b.name)), 'no frame of the package is drawn on its own');
    await screenshot(page, 'by-package');
    await page.uncheck('#hp-byPackage');
    await page.waitForFunction((n) => !(globalThis as any).__hotpath.boxes('main').some((b: any) => b.name === n), pkg);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
