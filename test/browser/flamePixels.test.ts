/**
 * Boxes are written as pixels — one device line per row, stretched down the row (renderer.ts,
 * paintBoxes) — instead of one fillRect each. They must look exactly as if filled: each in its colour,
 * on whole device pixels, the background and the gap under each row left as they were; the canvas the
 * same, pixel for pixel, as the browser's own rectangles draw it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { runCli } from '../helpers/cli';
import { drawnBoxes, launch, openReport, redrawn, ROOT } from './chromium';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { generateProfile } = require(path.join(ROOT, 'bench', 'lib', 'generate.js')) as { generateProfile(file: string, o: { targetBytes: number; nodeCount: number; seed: number }): void };

describe('flamegraph: boxes drawn as pixels', function () {
  this.timeout(180_000);
  let browser: Browser;
  let tmp: string;
  before(async () => {
    browser = await launch();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-pixels-'));
  });
  after(async () => {
    await browser?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('each thin box has its colour where a wide box of the same colour has it; rows keep their gap', async () => {
    // A generated server profile (bench/lib/generate.js): its flame chart changes stack every column.
    const profile = path.join(tmp, 'many.cpuprofile');
    generateProfile(profile, { targetBytes: 4 * 1024 * 1024, nodeCount: 4000, seed: 11 });
    const html = path.join(tmp, 'many.html');
    const run = await runCli(['report', '--html', html, profile]);
    assert.equal(run.code, 0, run.stderr);
    const { page, errors } = await openReport(browser, html);
    await redrawn(page, () => page.click('button[data-view="flamechart"]'));
    assert.equal(await page.evaluate(() => (globalThis as any).__hotpath.viewState.view), 'flamechart');
    const boxes = await drawnBoxes(page);
    const thinDrawn = boxes.filter((b) => b.w <= 2);
    assert.ok(thinDrawn.length >= 5000, `${thinDrawn.length} thin boxes: a zoomed-out flame chart of a large profile`);
    const canvasRect = await page.evaluate(() => { const r = document.querySelector('[data-pane="main"] canvas')!.getBoundingClientRect(); return { top: r.top, bottom: r.bottom }; });
    // Boxes whole on the canvas, with the row gap under them (a last row can be cut off at the bottom).
    const whole = (b: { y: number; h: number }) => b.y >= canvasRect.top && b.y + b.h + 1 <= canvasRect.bottom;
    const thin = thinDrawn.filter(whole);
    const wide = boxes.filter((b) => b.w >= 8 && whole(b));
    const sampled = thin.filter((_, i) => i % 37 === 0);
    const gaps = thin.filter((_, i) => i % 101 === 0);
    // Every device pixel's corner of a thin box (left and right edge, top, middle and bottom row), the
    // middle of one wide box per colour, the gap under thin boxes and under a wide one: read in the page.
    const points: Array<[number, number]> = [];
    for (const b of sampled) for (const y of [b.y + 0.25, b.y + b.h / 2, b.y + b.h - 0.25]) for (const x of [b.x + 0.25, b.x + b.w - 0.25]) points.push([x, y]);
    const firstWide = new Map<number, (typeof wide)[number]>();
    for (const b of wide) if (!firstWide.has(b.bucket)) firstWide.set(b.bucket, b);
    for (const b of firstWide.values()) points.push([b.x + b.w / 2, b.y + b.h / 2]);
    for (const b of gaps) points.push([b.x + b.w / 2, b.y + b.h + 0.5]);
    points.push([wide[0].x + wide[0].w / 2, wide[0].y + wide[0].h + 0.5]);
    const colours = await page.evaluate((pts) => {
      const canvas = document.querySelector('[data-pane="main"] canvas') as HTMLCanvasElement;
      const r = canvas.getBoundingClientRect();
      const scale = canvas.width / r.width;
      const copy = document.createElement('canvas');
      copy.width = canvas.width;
      copy.height = canvas.height;
      const ctx = copy.getContext('2d', { willReadFrequently: true })!;
      ctx.drawImage(canvas, 0, 0);
      return pts.map(([x, y]) => Array.from(ctx.getImageData(Math.floor((x - r.left) * scale), Math.floor((y - r.top) * scale), 1, 1).data.slice(0, 3)).join(','));
    }, points);
    let i = 0;
    const thinColours = sampled.map(() => colours.slice(i, (i += 6)));
    const wideColour = new Map([...firstWide.keys()].map((bucket) => [bucket, colours[i++]]));
    const gapColours = gaps.map(() => colours[i++]);
    const background = colours[i++];
    let compared = 0;
    sampled.forEach((b, k) => {
      const expected = wideColour.get(b.bucket);
      if (!expected) return;
      for (const c of thinColours[k]) assert.equal(c, expected, `${b.name} (w ${b.w}) at ${b.x},${b.y}`);
      compared++;
    });
    assert.ok(compared >= 10, `${compared} thin boxes compared`);
    gapColours.forEach((c, k) => assert.equal(c, background, `gap under ${gaps[k].name}`));
    assert.deepEqual(errors, []);
    await page.close();
  });
  it('the canvas is, pixel for pixel, what the browser\'s own rectangles draw (flamegraph, flame chart, search)', async () => {
    // The same report twice: as shipped, and with ImageData refused (the renderer then fills one
    // rectangle per box, its fallback). Every device pixel of the canvas is compared, row by row.
    const profile = path.join(tmp, 'same.cpuprofile');
    generateProfile(profile, { targetBytes: 4 * 1024 * 1024, nodeCount: 4000, seed: 7 });
    const html = path.join(tmp, 'same.html');
    const run = await runCli(['report', '--html', html, profile]);
    assert.equal(run.code, 0, run.stderr);
    const rowHashes = (page: import('playwright-core').Page) => page.evaluate(() => {
      const canvas = document.querySelector('[data-pane="main"] canvas') as HTMLCanvasElement;
      const copy = document.createElement('canvas');
      copy.width = canvas.width;
      copy.height = canvas.height;
      const ctx = copy.getContext('2d', { willReadFrequently: true })!;
      ctx.drawImage(canvas, 0, 0);
      const px = new Uint32Array(ctx.getImageData(0, 0, copy.width, copy.height).data.buffer);
      const rows: number[] = [];
      for (let y = 0; y < copy.height; y++) {
        let h = 2166136261;
        for (let x = y * copy.width, end = x + copy.width; x < end; x++) h = Math.imul(h ^ px[x], 16777619) >>> 0;
        rows.push(h);
      }
      return { size: `${copy.width}x${copy.height}`, rows };
    });
    const views = async (page: import('playwright-core').Page) => {
      const out: Record<string, Awaited<ReturnType<typeof rowHashes>>> = {};
      out.flamegraph = await rowHashes(page);
      await redrawn(page, () => page.fill('input[type="search"]', 'a'));
      assert.ok(await page.evaluate(() => (globalThis as any).__hotpath.boxes().some((b: { matched: boolean }) => !b.matched)), 'the search dims some boxes');
      out.search = await rowHashes(page);
      await redrawn(page, async () => {
        await page.fill('input[type="search"]', '');
        await page.click('button[data-view="flamechart"]');
      });
      assert.equal(await page.evaluate(() => (globalThis as any).__hotpath.viewState.view), 'flamechart');
      out.flamechart = await rowHashes(page);
      return out;
    };
    const shipped = await openReport(browser, html);
    const pixels = await views(shipped.page);
    const rectangles = await openReport(browser, html, { initScript: 'window.ImageData = class { constructor() { throw new Error("ImageData refused (test)"); } };' });
    const filled = await views(rectangles.page);
    for (const view of Object.keys(pixels)) {
      assert.equal(pixels[view].size, filled[view].size, view);
      const differing = pixels[view].rows.flatMap((h, y) => (h === filled[view].rows[y] ? [] : [y]));
      assert.deepEqual(differing, [], `${view}: device rows that differ from the rectangles' drawing`);
    }
    assert.deepEqual(shipped.errors, []);
    assert.deepEqual(rectangles.errors, []);
    await shipped.page.close();
    await rectangles.page.close();
  });
});
