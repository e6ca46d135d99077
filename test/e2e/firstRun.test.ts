/**
 * A new user's first runs in the real VS Code UI (issue 14), on an app Hotpath was not set up for:
 * store-finder, an Express 5 API whose only route is /api/stores (nothing at /) and which prints its URL
 * at startup. No target, no path configured. The user picks "Enter a command…" (the cursor waits after
 * "node "), answers the NODE_ENV question (three untruncated buttons, nothing stacked under it), and
 * the request pick offers /api/stores first — Enter, no typing — so the profile is of that route. Then:
 * the long ranking line's label is readable at 1400×900 and 1024×768 (not off screen, not under the
 * minimap, one label per line), the flamegraph footer shows its legend and note whole at both sizes,
 * and a remembered path the app does not serve (404) is caught after the warm-up and replaced from the
 * offer. Screenshots of each prompt and layout at both sizes go to test-results/e2e/.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { processesWith, waitForNoProcesses } from '../helpers/cli';
import { DEFAULT_LABEL_COLUMN } from '../../src/vscode/annotations/lineLabels';
import { drawnLabels, hotLines, lensesWithLines } from './helpers/editor';
import { clearToasts, goToLine, nodeEnvWarning, openFile, openWorkbench, runCommand, screenshot, statusItem, textOf, toast, toastButton, waitForText, webview } from './helpers/workbench';
import { storeFinderWorkspace } from './helpers/workspace';
import { layoutOf, settled } from './helpers/settle';
import { log, seconds, skipUnlessE2E, startUiSession, type UiSession } from './session';
import { onTestEnd } from './helpers/failures';

const SIZES = [{ width: 1400, height: 900 }, { width: 1024, height: 768 }] as const;
const sizeName = (s: { width: number; height: number }) => `${s.width}x${s.height}`;
/** A line label's first figure, its share: `17.2% · 350 ms` or `49.2% total · 17.2% self`. */
const LINE_SHARE = /^\d+(\.\d+)?% (total · \d+(\.\d+)?% self|· [\d,.]+ ms)/;

/** Runs `check` and takes a screenshot at each size; the workbench relayouts between them. */
async function atEachSize(page: Page, name: string, check: (size: string) => Promise<void>): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.mouse.move(5, size.height - 150); // no hover tooltip over what the screenshot shows
    await settled(page, () => layoutOf(page), { ready: ([width]) => Math.round(width) === size.width });
    await check(sizeName(size));
    await screenshot(page, `${name}-${sizeName(size)}`);
  }
  await page.setViewportSize(SIZES[0]);
  await settled(page, () => layoutOf(page), { ready: ([width]) => Math.round(width) === SIZES[0].width });
}

/** Whether an element's text is cut (ellipsis or clipped): its content is wider than its box. */
function truncated(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => el.scrollWidth > el.clientWidth + 1);
}

const quickInput = (page: Page) => page.locator('.quick-input-widget:visible');
const quickTitle = (page: Page) => page.locator('.quick-input-widget:visible .quick-input-title');
const quickRows = (page: Page) => page.locator('.quick-input-widget:visible .monaco-list-row');

/*
 * Chance of failing on a correct product (per attempt; on CI a failed UI test is retried once): < 1e-6.
 * The long ranking line is the app's hottest (24% of the profile, one second of its time at load average
 * 15), so it always carries a label; the rest is layout and prompts, read as state.
 */
describe('VS Code end to end: a new user on an app whose only route is not /', function () {
  this.timeout(300_000);
  let s: UiSession;
  let page: Page;
  let failed = false;
  const t0 = Date.now();
  const rel = 'lib/stores.js';
  let hotLine = 0;

  before(async function () {
    this.timeout(300_000);
    skipUnlessE2E(this);
    s = await startUiSession(storeFinderWorkspace);
    page = s.page;
    await openWorkbench(page, s.server.url, s.workspace.dir);
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'server.js' }).waitFor({ timeout: 90_000 });
    hotLine = fs.readFileSync(path.join(s.workspace.dir, rel), 'utf8').split('\n').findIndex((l) => l.includes('const ranked = stores.map(')) + 1;
    assert.ok(hotLine > 0);
  });

  afterEach(async function () {
    if (await onTestEnd(page, this.currentTest, 'first-')) failed = true;
  });

  after(async () => {
    await s?.close(failed);
    log(`first-run suite: ${seconds(t0)}`);
  });

  it('Profile with Load, new user: typed command keeps "node ", NODE_ENV question whole, the route the app printed offered first, profiled without typing it', async () => {
    const t = Date.now();
    await runCommand(page, 'Hotpath: Profile with Load', 90_000, { opensQuickInput: true });
    await quickTitle(page).filter({ hasText: 'how do you start the app?' }).waitFor({ timeout: 60_000 });
    assert.ok(await quickRows(page).filter({ hasText: 'npm start' }).count(), 'package.json scripts are offered');
    await quickRows(page).filter({ hasText: 'Enter a command…' }).first().click();

    // Item 2: the pre-filled "node " is not selected — typing adds the script after it.
    const input = quickInput(page).locator('input');
    await quickTitle(page).filter({ hasText: 'start command' }).waitFor({ timeout: 30_000 });
    await page.keyboard.type(`server.js ${s.workspace.marker}`);
    assert.equal(await input.inputValue(), `node server.js ${s.workspace.marker}`);
    await screenshot(page, 'first-01-start-command');
    await page.keyboard.press('Enter');

    // Item 3: the NODE_ENV question — three buttons, none cut, at both sizes; no notice stacked under it.
    const warning = nodeEnvWarning(page);
    await warning.waitFor({ timeout: 60_000 });
    await atEachSize(page, 'first-02-node-env-warning', async (size) => {
      const buttons = warning.locator('.monaco-button');
      const labels = (await buttons.allTextContents()).map((b) => b.trim());
      assert.deepEqual(labels, ['Use NODE_ENV=production', 'Run as Is', "Don't Ask Again"], size);
      for (let i = 0; i < labels.length; i++) assert.equal(await truncated(buttons.nth(i)), false, `${size}: button "${labels[i]}" is cut`);
      const others = page.locator('.notifications-toasts .notification-toast').filter({ hasNotText: 'NODE_ENV' });
      assert.equal(await others.count(), 0, `${size}: no other notification stacked with the question: ${await others.allTextContents()}`);
    });
    assert.match(await textOf(warning), /would run without NODE_ENV, in development mode/);
    await toastButton(warning, 'Use NODE_ENV=production').click();

    // Item 1: once the app listens, the request pick offers what it printed — Enter, no typing.
    await quickTitle(page).filter({ hasText: 'which request should the load send?' }).waitFor({ timeout: 60_000 });
    const first = quickRows(page).first();
    await atEachSize(page, 'first-03-request-pick', async (size) => {
      assert.match(await textOf(first), /^GET \/api\/stores\s*printed by the app at startup · Express route/, size);
      assert.equal(await quickRows(page).filter({ hasText: 'the root (not among the paths the app told)' }).count(), 1, `${size}: / is offered, last`);
    });
    assert.ok(processesWith(s.workspace.marker).length > 0, 'the app runs while the user chooses');
    await page.keyboard.press('Enter');

    const status = statusItem(page, 'hotpath.status');
    const done = await waitForText(status, /% (self|own)( · loop p99 [\d.,]+ m?s)?$/, 180_000);
    const summary = toast(page, 'Profile saved');
    await summary.waitFor({ timeout: 30_000 });
    const summaryText = await textOf(summary);
    assert.match(summaryText, /req\/s of GET \/api\/stores/, 'the profile is of the route the app printed');
    assert.match(summaryText, /Hotpath remembers "node server\.js/, 'what was remembered is said once, in the summary');
    assert.deepEqual(await waitForNoProcesses(s.workspace.marker, 10_000), [], 'the app is stopped after the run');
    await screenshot(page, 'first-04-profiled');
    log(`new-user profile: ${seconds(t)}; status "${done}"`);
  });

  it('the flamegraph footer: legend and its note whole at both sizes, every swatch labelled', async () => {
    const frame = webview(page);
    const footer = frame.locator('.hp-footer');
    await footer.waitFor({ timeout: 60_000 });
    // Select a frame, so the details line is filled too (as when a user has clicked one).
    const pane = frame.locator('[data-pane="main"]');
    const box = await pane.evaluate((el) => {
      const boxes = (globalThis as any).__hotpath.boxes('main') as { name: string; x: number; y: number; w: number; h: number }[];
      const b = boxes.filter((x) => x.name === 'nearestStores').sort((a, c) => c.w - a.w)[0] ?? boxes.sort((a, c) => c.w - a.w)[0];
      const r = el.getBoundingClientRect();
      return { x: b.x - r.left + Math.min(b.w / 2, 30), y: b.y - r.top + b.h / 2 };
    });
    await pane.click({ position: box });
    await clearToasts(page); // the run's summary would cover the footer in the screenshots
    await page.mouse.move(5, 400);
    await atEachSize(page, 'first-05-flamegraph-footer', async (size) => {
      const fit = await footer.evaluate((el) => {
        const f = el.getBoundingClientRect();
        const parts = [...el.querySelectorAll('.hp-legend > *, .hp-legend-note, .hp-details')].map((p) => {
          const r = p.getBoundingClientRect();
          return { text: (p.textContent ?? '').trim().slice(0, 60), inside: r.height === 0 || (r.top >= f.top - 1 && r.bottom <= f.bottom + 1 && r.right <= f.right + 1) };
        });
        return { clipped: el.scrollHeight > el.clientHeight + 1, parts };
      });
      assert.equal(fit.clipped, false, `${size}: the footer's content is cut off`);
      const outside = fit.parts.filter((p) => !p.inside);
      assert.deepEqual(outside, [], `${size}: footer parts outside it`);
      const note = frame.locator('.hp-legend-note');
      assert.match(await textOf(note), /Width: total time/, `${size}: the note says what width means`);
      const unlabelled = await frame.locator('.hp-legend .hp-legend-entry').evaluateAll((els) => els.filter((e) => !(e.textContent ?? '').trim()).length);
      assert.equal(unlabelled, 0, `${size}: every legend entry has a label`);
    });
  });

  it('the long ranking line: one label, its share first, readable at both sizes (above the line, not off screen or under the minimap)', async () => {
    await openFile(page, rel);
    await goToLine(page, hotLine);
    const long = fs.readFileSync(path.join(s.workspace.dir, rel), 'utf8').split('\n')[hotLine - 1].trim();
    // Decorations and CodeLens arrive asynchronously: wait for the long line's lens row (a state).
    await settled(page, () => lensesWithLines(page), { timeoutMs: 30_000, ready: (ls) => ls.some((l) => l.line.trim() === long) });
    await atEachSize(page, 'first-06-long-line-label', async (size) => {
      await goToLine(page, hotLine);
      await page.keyboard.press('Home'); // no horizontal scroll: what a reader sees first
      await settled(page, () => drawnLabels(page));
      const { bounds, lines } = await drawnLabels(page);
      const limit = bounds.minimapLeft ?? bounds.contentRight;
      // Labels after their lines: one per line, the line's share first and whole in view, left of the
      // minimap. The whole label is in view where the text area is at least hotpath.annotations.labelColumn
      // columns wide (the default here): the extension API cannot tell how wide the editor is, so on a
      // narrower one the rest of a label may run under the minimap (1024×768 with the Explorer open is
      // about 60 columns) — its share, first, stays readable, and the hover has it all.
      const charWidth = lines[0]?.charWidth;
      // Rounded, not floored: the character width comes from one label's pixels (±0.02 px), and 1400×900 is
      // about 100.7 columns wide.
      const columns = charWidth ? Math.round((limit - bounds.contentLeft) / charWidth) : null;
      if (size === sizeName(SIZES[0]) && columns !== null) assert.ok(columns >= DEFAULT_LABEL_COLUMN, `${size}: the text area is ${columns} columns, fewer than the default label column ${DEFAULT_LABEL_COLUMN}`);
      log(`${size}: text area ${charWidth ? ((limit - bounds.contentLeft) / charWidth).toFixed(2) : '?'} columns; ${lines.length} label(s) after their lines`);
      for (const l of lines) {
        const what = `${size}: label ${JSON.stringify(l.labels)} of "${l.line.trim().slice(0, 40)}"`;
        // An event-loop or memory label ("blocked the loop: 1 turn, up to 41.5 ms") is another kind a line
        // may carry, alone or beside its CPU label: on a busy machine a turn can reach the 20 ms threshold on
        // this app's lines (seen in a clean-clone run), and the product then says so. The rules below are the
        // CPU label's: one per line, its share first.
        const cpu = l.labels.filter((x) => !/^(blocked the loop|allocates|calls allocate|retains)\b/.test(x));
        if (!cpu.length) { log(`${what}: an event-loop or memory label only`); continue; }
        assert.equal(cpu.length, 1, `${size}: one label per line: "${l.line.trim().slice(0, 40)}" has ${JSON.stringify(l.labels)}`);
        if (l.labels[l.labels.length - 1] !== cpu[0]) { log(`${what}: the CPU label is not the line's last; its position is not measured`); continue; }
        // A line with a deopt and no time of its own starts with the deopt: "deopt: wrong map ×3".
        const share = (LINE_SHARE.exec(cpu[0]) ?? /^deopt: [^·]*[^· ]/.exec(cpu[0]))?.[0];
        assert.ok(share, `${what}: its share (or, with no time, its deopt) comes first`);
        const shareRight = l.textLeft + share.length * l.charWidth;
        assert.ok(l.left >= bounds.contentLeft && shareRight <= limit + 1, `${what}: its share "${share}" spans ${Math.round(l.textLeft)}–${Math.round(shareRight)}, text area ends at ${Math.round(limit)}`);
        if (columns !== null && columns >= DEFAULT_LABEL_COLUMN) assert.ok(l.right <= limit + 1, `${what} spans ${Math.round(l.left)}–${Math.round(l.right)}, text area (${columns} columns) ends at ${Math.round(limit)}`);
        else if (l.right > limit + 1) log(`${size}: ${columns} columns; ${what} runs under the minimap after "${share}"`);
      }
      // The long line's label: above it, in the lens row, first on that row and whole in view.
      const labelled = (await hotLines(page)).find((l) => l.text.trim() === long);
      assert.ok(labelled, `${size}: the long line carries a label`);
      assert.equal(labelled.where, 'above', `${size}: a line this long gets its label above it`);
      assert.ok(!lines.some((l) => l.line.trim() === long), `${size}: and no second label after it`);
      assert.match(labelled.after, LINE_SHARE, `${size}: the line's share comes first: "${labelled.after}"`);
      // The lens row above the long line, found by its label among the visible rows (Monaco keeps hidden
      // rows of lines out of view, with no box: the first arrow in the DOM can be one of those).
      // Found again on every read, and read until it has a box: right after a resize Monaco re-renders the
      // lens row, and a row not laid out yet measures 0–0 (seen once on CI) — a state, not the product's.
      const lensBox = () => page.locator('.editor-instance .monaco-editor .codelens-decoration', { hasText: labelled.after.trim() }).filter({ visible: true }).first()
        .locator('.codicon-arrow-small-down').first()
        .evaluate((icon) => { const r = (icon.closest('a') ?? icon.parentElement!).getBoundingClientRect(); return { left: r.left, right: r.right }; });
      const rect = await settled(page, lensBox, { ready: (r) => r.right > r.left });
      assert.ok(rect.left >= bounds.contentLeft && rect.right <= limit + 1, `${size}: the lens label spans ${Math.round(rect.left)}–${Math.round(rect.right)}, text area ends at ${Math.round(limit)}`);
      const row = (await lensesWithLines(page)).find((l) => l.line.trim() === long);
      assert.ok(row?.lineLabel && row.lens.trim().startsWith(labelled.after), `${size}: the line's label opens its lens row: ${JSON.stringify(row)}`);
      log(`${size}: long line label above it: "${labelled.after}"; row "${row.lens}"`);
    });
  });

  it('a remembered path the app does not serve: the warm-up gets 404s, the user is offered the real route, the run profiles it', async () => {
    await clearToasts(page);
    // Choose Target…: the same command, and pin the path "/" (as if the app had served it once).
    await runCommand(page, 'Hotpath: Choose Target…', 90_000, { opensQuickInput: true });
    await quickTitle(page).filter({ hasText: 'how do you start the app?' }).waitFor({ timeout: 60_000 });
    await quickRows(page).filter({ hasText: 'Enter a command…' }).first().click();
    await quickTitle(page).filter({ hasText: 'start command' }).waitFor({ timeout: 30_000 });
    await page.keyboard.type(`server.js ${s.workspace.marker}`);
    await page.keyboard.press('Enter');
    await quickTitle(page).filter({ hasText: 'which request should the load send?' }).waitFor({ timeout: 30_000 });
    await quickRows(page).filter({ hasText: 'Enter a path…' }).first().click();
    await quickTitle(page).filter({ hasText: 'request path to load' }).waitFor({ timeout: 30_000 });
    assert.equal(await quickInput(page).locator('input').inputValue(), '/');
    await page.keyboard.press('Enter');
    await quickTitle(page).filter({ hasText: 'HTTP method' }).waitFor({ timeout: 30_000 });
    await page.keyboard.press('Enter'); // GET
    await quickInput(page).waitFor({ state: 'hidden', timeout: 30_000 });

    await runCommand(page, 'Hotpath: Profile with Load');
    const warning = nodeEnvWarning(page);
    await warning.waitFor({ timeout: 60_000 });
    await toastButton(warning, 'Use NODE_ENV=production').click();
    // No request pick before the load: the remembered "/" is used, and its warm-up gets only 404s.
    await quickTitle(page).filter({ hasText: 'got 404' }).waitFor({ timeout: 90_000 });
    assert.match(await textOf(quickTitle(page)), /every warm-up request to GET \/ got 404/);
    await atEachSize(page, 'first-07-404-pick', async (size) => {
      assert.match(await textOf(quickRows(page).first()), /^GET \/api\/stores/, size);
    });
    await page.keyboard.press('Enter');
    const summary = toast(page, 'Profile saved');
    await summary.waitFor({ timeout: 180_000 });
    assert.match(await textOf(summary), /req\/s of GET \/api\/stores/);
    assert.deepEqual(await waitForNoProcesses(s.workspace.marker, 10_000), []);
    await screenshot(page, 'first-08-after-404');
  });
});
