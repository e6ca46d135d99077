/**
 * The standalone flamegraph report in headless Chromium, checked through the page itself: what is
 * drawn (boxes and canvas pixels), the tooltip's text, search, zoom, the other views, the differential
 * colours, and that profile-controlled strings stay text. Reports are written by the real CLI.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { loadProfile } from '../../src/core/profile';
import { runCli } from '../helpers/cli';
import { diffProfile } from './diffProfile';
import { boxOf, drawnBoxes, launch, openReport, pixelAt, redrawn, RESULTS, ROOT, screenshot } from './chromium';
import { formatPct } from '../../src/shared/text/numbers';

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'profiles');
const APPS = path.join(__dirname, 'apps');

/** The tooltip's text after hovering the centre of a box. */
async function hoverText(page: Page, box: { x: number; y: number; w: number; h: number }): Promise<string> {
  await page.mouse.move(box.x + Math.min(box.w / 2, 40), box.y + box.h / 2);
  await page.waitForSelector('#hp-tooltip:not([hidden])');
  return (await page.textContent('#hp-tooltip')) ?? '';
}

/** A percentage as the page formats it (the shared formatter). */
const pct = (fraction: number): string => formatPct(fraction * 100);

describe('flamegraph report in Chromium', function () {
  this.timeout(120_000);
  let browser: Browser;
  let tmp: string;

  before(async () => {
    browser = await launch();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-browser-'));
    fs.mkdirSync(RESULTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  describe('a recorded profile (cpu-hot)', () => {
    let report: string;
    let expected: { file: string; line: number; totalShare: number; selfShare: number };

    before(async () => {
      report = path.join(tmp, 'cpu-hot.html');
      const run = await runCli(['report', '--json', '--html', report, path.join(FIXTURES, 'cpu-hot.cpuprofile')]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.json().flamegraphPath, report);
      const model = await loadProfile(path.join(FIXTURES, 'cpu-hot.cpuprofile'), { sourceMaps: false });
      const f = model.functions.findIndex((x) => x.name === 'hotLoop');
      expected = { file: model.functions[f].file, line: model.functions[f].line!, totalShare: model.functionTotalUs[f] / model.durationUs, selfShare: model.functionSelfUs[f] / model.durationUs };
    });

    it('draws the hot frame; its tooltip shows file:line, self and total share', async () => {
      const { page, errors } = await openReport(browser, report);
      const hot = await boxOf(page, 'hotLoop');
      const canvasWidth = await page.evaluate(() => document.querySelector('[data-pane="main"] canvas')!.getBoundingClientRect().width);
      assert.ok(hot.w / canvasWidth > 0.5, `hotLoop is wide (${hot.w} of ${canvasWidth} px)`);
      assert.equal(`${hot.file}:${hot.line}`, `${expected.file}:${expected.line}`);
      // The canvas really has a box there: not the background colour.
      const [r, g, b] = await pixelAt(page, hot.x + hot.w - 4, hot.y + hot.h - 3);
      assert.ok(!(r === 255 && g === 255 && b === 255), `box pixel is coloured (${r},${g},${b})`);
      const text = await hoverText(page, hot);
      assert.match(text, /hotLoop/);
      assert.ok(text.includes(`${expected.file}:${expected.line}`), text);
      assert.ok(text.includes(`Total`) && text.includes(`(${pct(expected.totalShare)})`), `total share ${pct(expected.totalShare)} in: ${text}`);
      assert.ok(text.includes(`(${pct(expected.selfShare)})`), `self share ${pct(expected.selfShare)} in: ${text}`);
      assert.match(text, /Your code/);
      await screenshot(page, 'cpu-hot-light-hover');
      assert.deepEqual(errors, []);
      await page.close();
    });

    it('search highlights the frame and reports its share', async () => {
      const { page, errors } = await openReport(browser, report);
      await redrawn(page, () => page.fill('input[type="search"]', 'hotloop'));
      await page.waitForFunction(() => document.querySelector('.hp-search-result')!.textContent!.includes('of total'));
      const result = await page.textContent('.hp-search-result');
      assert.ok(result!.includes(`${pct(expected.totalShare)} of total`), `${result} vs ${pct(expected.totalShare)}`);
      const share = Number(await page.getAttribute('.hp-search-result', 'data-share-pct'));
      assert.ok(Math.abs(share - expected.totalShare * 100) < 0.01, `share ${share}`);
      const boxes = await drawnBoxes(page);
      const hot = boxes.find((b) => b.name === 'hotLoop')!;
      const other = boxes.find((b) => b.name === 'warmLoop')!;
      assert.ok(hot.matched && !other.matched);
      // Matches keep their colour; the rest is dimmed to one neutral fill.
      const hotPixel = await pixelAt(page, hot.x + hot.w - 4, hot.y + hot.h - 3);
      const otherPixel = await pixelAt(page, other.x + other.w - 2, other.y + other.h - 3);
      assert.notDeepEqual(hotPixel, otherPixel);
      assert.ok(Math.max(...otherPixel.slice(0, 3)) - Math.min(...otherPixel.slice(0, 3)) < 8, `dimmed pixel is grey: ${otherPixel}`);
      // A regular expression matching both loops adds their shares.
      await page.click('button[aria-label="Regular expression"]');
      await page.fill('input[type="search"]', '^(hot|warm)Loop ');
      await page.waitForFunction(() => document.querySelector('.hp-search-result')!.textContent!.startsWith('2 functions'));
      await screenshot(page, 'cpu-hot-light-search');
      assert.deepEqual(errors, []);
      await page.close();
    });

    it('click zooms into a frame; the breadcrumb shows the path and resets', async () => {
      const { page, errors } = await openReport(browser, report, { colorScheme: 'dark' });
      const hot = await boxOf(page, 'hotLoop');
      await page.mouse.click(hot.x + 20, hot.y + hot.h / 2);
      await page.waitForFunction(() => [...document.querySelectorAll('.hp-crumbs button')].pop()?.textContent === 'hotLoop');
      const zoomed = await boxOf(page, 'hotLoop');
      const canvasWidth = await page.evaluate(() => document.querySelector('[data-pane="main"] canvas')!.getBoundingClientRect().width);
      assert.ok(zoomed.w > canvasWidth - 2, `zoomed frame spans the width (${zoomed.w} of ${canvasWidth})`);
      assert.match((await page.textContent('.hp-details'))!, /hotLoop/);
      await screenshot(page, 'cpu-hot-dark-zoomed');
      await page.click('.hp-crumbs button:first-child');
      await page.waitForFunction(() => (globalThis as any).__hotpath.zoomFrame === 0);
      // Keyboard: Escape zooms out, N selects the hottest frame.
      await page.focus('[data-pane="main"] canvas');
      await page.keyboard.press('n');
      await page.waitForFunction(() => document.querySelector('.hp-details')!.textContent!.includes('hotLoop'));
      await screenshot(page, 'cpu-hot-dark');
      assert.deepEqual(errors, []);
      await page.close();
    });

    it('hover and selection outline the box they are on, without redrawing or adding a canvas', async () => {
      const { page, errors } = await openReport(browser, report);
      const outline = (kind: string) => page.evaluate((k) => {
        const el = document.querySelector(`[data-pane="main"] .hp-outline-${k}`) as HTMLElement | null;
        if (!el || el.hidden) return null;
        const r = el.getBoundingClientRect();
        return { x: r.left, y: r.top, w: r.width, h: r.height, border: getComputedStyle(el).borderTopWidth };
      }, kind);
      const near = (a: { x: number; y: number; w: number }, b: { x: number; y: number; w: number }) => Math.abs(a.x - b.x) <= 1 && Math.abs(a.y - b.y) <= 1 && Math.abs(a.w - b.w) <= 1;
      // One canvas per pane: the outlines are elements, not a second pane-sized bitmap to upload per hover.
      assert.equal(await page.evaluate(() => document.querySelectorAll('[data-pane="main"] canvas').length), 1);
      const draws = await page.evaluate(() => (globalThis as any).__hotpath.metrics.length);
      const hot = await boxOf(page, 'hotLoop');
      const warm = await boxOf(page, 'warmLoop');
      await hoverText(page, hot);
      const hovered = await outline('hover');
      assert.ok(hovered && near(hovered, hot) && hovered.border === '1px', `hover outline ${JSON.stringify(hovered)} on ${JSON.stringify(hot)}`);
      await hoverText(page, warm);
      assert.ok(near((await outline('hover'))!, warm), 'the outline follows the pointer');
      assert.equal(await page.evaluate(() => (globalThis as any).__hotpath.metrics.filter((m: { reason: string }) => m.reason !== 'hover').length), draws, 'hovering redrew nothing');
      // Keyboard selection (N: the hottest frame) gets the 2 px outline; the pointer leaving hides the hover's.
      await page.focus('[data-pane="main"] canvas');
      await page.keyboard.press('n');
      await page.waitForFunction(() => !(document.querySelector('[data-pane="main"] .hp-outline-selected') as HTMLElement).hidden);
      const selected = await outline('selected');
      assert.ok(selected && near(selected, hot) && selected.border === '2px', `selected outline ${JSON.stringify(selected)} on ${JSON.stringify(hot)}`);
      await page.mouse.move(2, 2);
      await page.waitForFunction(() => (document.querySelector('[data-pane="main"] .hp-outline-hover') as HTMLElement).hidden);
      assert.deepEqual(errors, []);
      await page.close();
    });

    it('flame chart and sandwich views draw the hot function', async () => {
      const { page, errors } = await openReport(browser, report);
      await page.click('button[data-view="flamechart"]');
      await page.waitForFunction(() => (globalThis as any).__hotpath.boxes('main').some((b: any) => b.name === 'hotLoop'));
      const span = await boxOf(page, 'hotLoop');
      assert.match(await hoverText(page, span), /This span: ≈/);
      await screenshot(page, 'cpu-hot-light-flamechart');
      await page.click('button[data-view="sandwich"]');
      await page.waitForFunction(() => (globalThis as any).__hotpath.boxes('callers').length > 0);
      // The sandwich starts on the hottest function: hotLoop, with its callers above.
      assert.equal((await drawnBoxes(page, 'callers'))[0]?.name, 'hotLoop');
      assert.equal((await drawnBoxes(page, 'callees'))[0]?.name, 'hotLoop');
      await screenshot(page, 'cpu-hot-light-sandwich');
      assert.deepEqual(errors, []);
      await page.close();
    });
  });

  it('differential report: a frame that got faster is coloured differently from one that got slower', async () => {
    // Written, not recorded (diffProfile.ts says why): parseInput 300 → 100 ms, renderOutput 100 → 300 ms.
    const before = diffProfile(path.join(tmp, 'before.cpuprofile'), 300, 100);
    const after = diffProfile(path.join(tmp, 'after.cpuprofile'), 100, 300);
    const report = path.join(tmp, 'diff.html');
    const run = await runCli(['report', '--html', report, '--diff', before, after]);
    assert.equal(run.code, 0, run.stderr);
    for (const scheme of ['light', 'dark'] as const) {
      const { page, errors } = await openReport(browser, report, { colorScheme: scheme });
      assert.equal(await page.inputValue('select[aria-label="Colour by"]'), 'diff');
      const faster = await boxOf(page, 'parseInput');
      const slower = await boxOf(page, 'renderOutput');
      const [fr, , fb] = await pixelAt(page, faster.x + faster.w - 4, faster.y + faster.h - 3);
      const [sr, , sb] = await pixelAt(page, slower.x + slower.w - 4, slower.y + slower.h - 3);
      assert.ok(fb > fr, `faster frame is blue (${fr},${fb})`);
      assert.ok(sr > sb, `slower frame is red (${sr},${sb})`);
      assert.match(await hoverText(page, faster), /before → .* after \(−/);
      assert.match(await hoverText(page, slower), /before → .* after \(\+/);
      const legend = (await page.textContent('.hp-legend'))!;
      assert.match(legend, /before\.cpuprofile, \d+ ms/);
      assert.match(legend, /after \(after\.cpuprofile, \d+ ms/);
      await screenshot(page, `diff-${scheme}`);
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  it('compare report: the header names both sides, and frames are matched across the two runs', async () => {
    const run = await runCli(['compare', '--script', '--env-a', 'DIFF_WEIGHTS=3,1', '--env-b', 'DIFF_WEIGHTS=1,3', '--label-a', 'before <b>fix</b>', '--pairs', '2', '--json', '--out', tmp, '--', 'node', path.join(APPS, 'diff-app.js')], { timeoutMs: 100_000 });
    assert.ok(run.code === 0 || run.code === 3, run.stderr);
    const doc = run.json();
    assert.ok(fs.existsSync(doc.diffHtmlPath));
    const { page, errors } = await openReport(browser, doc.diffHtmlPath);
    const header = (await page.textContent('.hp-summary[data-diff-sides]')) ?? '';
    assert.match(header, /^before: before <b>fix<\/b> · Node [\d.]+ .*→ after: DIFF_WEIGHTS=1,3 · Node [\d.]+/, header);
    assert.equal(await page.locator('.hp-summary b').count(), 0, 'a label is text, not markup');
    const faster = await boxOf(page, 'parseInput');
    const hover = await hoverText(page, faster);
    assert.match(hover, /before → .* after \(−/, `parseInput matched in both runs and got faster: ${JSON.stringify(hover)}`);
    const legend = (await page.textContent('.hp-legend'))!;
    assert.match(legend, /vs before \(before <b>fix<\/b>, \d+/);
    await screenshot(page, 'compare-diff');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('XSS: markup in a function name and in a file path is shown as text and never runs', async () => {
    // A real recording through `hotpath profile --script`, which also writes the HTML next to the profile.
    const evilDir = path.join(tmp, '"><script>window.__pwned=1<', 'script>');
    fs.mkdirSync(evilDir, { recursive: true });
    const script = path.join(evilDir, 'app.js');
    fs.copyFileSync(path.join(APPS, 'xss-app.js'), script);
    const out = path.join(tmp, 'xss-out');
    const run = await runCli(['profile', '--script', '--json', '--out', out, '--sampling-interval', '200', '--', process.execPath, script], { cwd: tmp });
    assert.equal(run.code, 0, run.stderr);
    const result = run.json();
    assert.ok(result.flamegraphPath && fs.existsSync(result.flamegraphPath), 'profile writes the HTML next to the profile');
    // The same report under a hostile file name, via `report --html`.
    const hostile = path.join(tmp, '<img src=x onerror="window.__pwned=1">.html');
    const evilProfile = path.join(tmp, '<svg onload="window.__pwned=1">.cpuprofile');
    fs.copyFileSync(result.profilePath, evilProfile);
    assert.equal((await runCli(['report', '--html', hostile, evilProfile])).code, 0);

    const name = '<img src=x onerror="window.__pwned=1">';
    const pathText = '"><script>window.__pwned=1</script>';
    for (const report of [result.flamegraphPath as string, hostile]) {
      const { page, errors } = await openReport(browser, report);
      const evil = await boxOf(page, name);
      assert.ok(evil.file.includes(pathText), evil.file);
      const text = await hoverText(page, evil);
      assert.ok(text.includes(name), `tooltip shows the name as text: ${text}`);
      assert.ok(text.includes(pathText), `tooltip shows the path as text: ${text}`);
      // Search by the markup itself, then select the frame: the details bar shows it as text too.
      await page.fill('input[type="search"]', '<img');
      await page.mouse.click(evil.x + 10, evil.y + evil.h / 2);
      await page.waitForFunction((n) => document.querySelector('.hp-details')!.textContent!.includes(n), name);
      await page.waitForTimeout(200);
      const state = await page.evaluate(() => ({
        pwned: (globalThis as any).__pwned,
        images: document.querySelectorAll('img, svg').length,
        scripts: [...document.querySelectorAll('script')].map((s) => s.type || 'js'),
        title: document.title,
      }));
      assert.equal(state.pwned, undefined);
      assert.equal(state.images, 0, 'no element was created from profile text');
      assert.deepEqual(state.scripts, ['application/json', 'application/octet-stream', 'js']);
      assert.ok(state.title.includes('.cpuprofile'));
      await screenshot(page, report === hostile ? 'xss-hostile-title' : 'xss');
      assert.deepEqual(errors, []);
      await page.close();
    }
    // The HTML never contains the markup raw (the embedded JSON escapes < and >).
    const html = fs.readFileSync(hostile, 'utf8');
    assert.ok(!html.includes('<img src=x') && !html.includes('<svg onload') && !html.includes('<script>window'));
  });
});
