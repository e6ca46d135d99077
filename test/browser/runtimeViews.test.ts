/**
 * The flamegraph's views beyond CPU time, in headless Chromium: the lane of blocking episodes over the
 * flame chart (bars in the chart's window, a tooltip naming the culprit, hostile labels kept as text),
 * an allocation profile drawn in bytes per request, and the CPU ⇄ Allocations switch a host offers.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { renderReportHtml } from '../../src/cli/htmlReport';
import { buildFlamePayload } from '../../src/core/flame';
import { allocationFlamePayload } from '../../src/core/memory/flame';
import { buildAllocationModel } from '../../src/core/memory/heapProfile';
import { buildProfileModel } from '../../src/core/profile';
import { initMessages } from '../../src/shared/protocol';
import { HOSTILE_NAMES, profileOf } from '../hostileText';
import { boxOf, hostPageHtml, launch, openReport, RESULTS, screenshot } from './chromium';

describe('flamegraph: blocking lane, allocations, dataset switch (Chromium)', function () {
  this.timeout(120_000);
  let browser: Browser;
  let tmp: string;

  before(async () => {
    browser = await launch();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-browser-runtime-'));
    fs.mkdirSync(RESULTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** 200 ms of CPU: `handle` for 40 ms, `report` for 120 ms, `handle` again. */
  const cpuModel = () => buildProfileModel(JSON.stringify(profileOf([
    { name: 'handle', url: 'file:///app/server.js', line: 3, samples: 40 },
    { name: 'report', url: 'file:///app/report.js', line: 8, samples: 120 },
  ])), { sourceName: 'blocked.cpuprofile' });

  it('draws blocking episodes as a lane on the flame chart\'s time axis, named in a tooltip; hostile labels stay text', async () => {
    const payload = buildFlamePayload(cpuModel());
    const hostile = HOSTILE_NAMES[4]; // markup
    payload.meta.lanes = [{ title: 'Loop blocked ≥ 20.0 ms', spans: [40_000, 130_000, 135_000, 155_000], labels: ['Event loop blocked 90.0 ms: report (report.js:8)', `Event loop blocked 25.0 ms: ${hostile}`] }];
    const file = path.join(tmp, 'lane.html');
    fs.writeFileSync(file, renderReportHtml(payload));
    const { page, errors } = await openReport(browser, file);
    assert.equal(await page.locator('.hp-lanes').count(), 0, 'no lane outside the flame chart');
    await page.click('button[data-view="flamechart"]');
    await page.waitForFunction(() => (globalThis as any).__hotpath.laneSpans().length === 2);
    const spans = await page.evaluate(() => (globalThis as any).__hotpath.laneSpans());
    const width = await page.evaluate(() => document.querySelector('.hp-lanes')!.clientWidth);
    // The chart spans the profile's samples: the first episode starts 40 ms in and lasts 90 ms.
    const total = payload.timeline!.endUs;
    assert.ok(Math.abs(spans[0].x0 - (40_000 / total) * width) < 2, JSON.stringify(spans));
    assert.ok(Math.abs(spans[0].x1 - spans[0].x0 - (90_000 / total) * width) < 2, JSON.stringify(spans));
    const lane = await page.locator('.hp-lanes canvas').boundingBox();
    await page.mouse.move(lane!.x + (spans[0].x0 + spans[0].x1) / 2, lane!.y + 6);
    await page.waitForSelector('#hp-tooltip:not([hidden])');
    assert.equal(await page.textContent('#hp-tooltip'), 'Event loop blocked 90.0 ms: report (report.js:8)');
    await page.mouse.move(lane!.x + (spans[1].x0 + spans[1].x1) / 2, lane!.y + 6);
    await page.waitForFunction((t) => document.querySelector('#hp-tooltip')?.textContent === t, `Event loop blocked 25.0 ms: ${hostile}`);
    assert.equal(await page.locator('#hp-tooltip img').count(), 0, 'markup in a label is text');
    // Zooming the chart keeps the lane on the same axis: in report's window, the first episode starts at its left edge.
    const report = await boxOf(page, 'report');
    await page.mouse.click(report.x + report.w / 2, report.y + report.h / 2);
    await page.waitForFunction(() => { const s = (globalThis as any).__hotpath.laneSpans(); return s.length >= 1 && s[0].x0 < 2; });
    await screenshot(page, 'flame-chart-blocking-lane');
    assert.deepEqual(errors, []);
  });

  it('shows an allocation profile in bytes: allocated per request in the header and the tooltip', async () => {
    let id = 1;
    const node = (name: string, url: string, line: number, selfSize: number, children: any[] = []) => ({ id: id++, callFrame: { functionName: name, scriptId: '1', url, lineNumber: line, columnNumber: 0 }, selfSize, children });
    const head = node('(root)', '', -1, 0, [node('handler', 'file:///app/server.js', 20, 2048, [node('catalogPage', 'file:///app/lib/catalog.js', 5, 60 * 1024)])]);
    const model = await buildAllocationModel({ head }, { sourceName: 'catalog.heapprofile' });
    const payload = allocationFlamePayload(model, { title: 'catalog.heapprofile', requests: 100 });
    const file = path.join(tmp, 'alloc.html');
    fs.writeFileSync(file, renderReportHtml(payload));
    const { page, errors } = await openReport(browser, file);
    assert.equal(await page.textContent('.hp-summary'), '62.0 KB allocated (635 B/request) · 2 samples');
    const box = await boxOf(page, 'catalogPage');
    await page.mouse.move(box.x + Math.min(box.w / 2, 40), box.y + box.h / 2);
    await page.waitForSelector('#hp-tooltip:not([hidden])');
    assert.match((await page.textContent('#hp-tooltip'))!, /Allocated here 60\.0 KB \(614 B\/request, 96\.8%\) · Total 60\.0 KB \(96\.8%\)/);
    // The legend speaks of bytes, not of time.
    const legend = (await page.textContent('.hp-legend'))!;
    assert.match(legend, /Width: bytes allocated by the frame and its callees/);
    assert.doesNotMatch(legend, /time/);
    await screenshot(page, 'allocation-flamegraph');
    assert.deepEqual(errors, []);
  });

  it('offers the datasets a host names, and asks the host for the other one', async () => {
    const payload = buildFlamePayload(cpuModel());
    const messages = initMessages(payload, true, undefined, { choices: [{ id: 'cpu', label: 'CPU time', active: true }, { id: 'allocations', label: 'Allocations', active: false }] });
    const file = path.join(tmp, 'choices.html');
    fs.writeFileSync(file, hostPageHtml(messages));
    const { page, errors } = await openReport(browser, file);
    assert.equal(await page.getAttribute('button[data-choice="cpu"]', 'aria-pressed'), 'true');
    await page.click('button[data-choice="allocations"]');
    await page.waitForFunction(() => (globalThis as any).__hostLog.some((m: any) => m.type === 'showData'));
    const log = await page.evaluate(() => (globalThis as any).__hostLog);
    assert.deepEqual(log, [{ type: 'ready' }, { type: 'showData', id: 'allocations' }]);
    assert.deepEqual(errors, []);
  });
});
