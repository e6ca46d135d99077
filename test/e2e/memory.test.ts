/**
 * Allocations, the event loop and leaks in the real VS Code UI, on a real Express app
 * (test/fixtures/npm-apps/orders-api): Profile with Load with hotpath.profile.memory on, under a mix
 * that mostly targets /orders while /report derives a key synchronously (~40 ms) and /catalog builds
 * 600 objects per request — the PBKDF2 line in lib/report.js carries "blocked the loop" with a hover
 * that lists the episodes, the status bar shows the loop's p99, and catalogPage in lib/catalog.js
 * carries its bytes per request. Then Check for Leaks on /visit: the status bar says the heap grows and
 * the line that keeps every visit carries what it retains. One code-server and one page for all.
 * Screenshots go to test-results/e2e/memory-*.png.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { marker, waitForNoProcesses } from '../helpers/cli';
import { hoverOn, labelledLines, type HotLine } from './helpers/editor';
import { clearToasts, goToLine, openFile, openWorkbench, runCommand, screenshot, statusItem, textOf, waitForText, ROOT } from './helpers/workbench';
import type { ShopWorkspace } from './helpers/workspace';
import { log, seconds, skipUnlessE2E, startUiSession, type UiSession } from './session';
import { onTestEnd } from './helpers/failures';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'npm-apps', 'orders-api');

/** A temp copy of orders-api (node_modules included) with two targets: the mixed load, and /visit alone for the leak check. */
function ordersWorkspace(): ShopWorkspace {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-e2e-orders-'));
  const mark = marker();
  fs.cpSync(FIXTURE, dir, { recursive: true });
  fs.mkdirSync(path.join(dir, '.vscode'));
  const env = { PORT: '0', NODE_ENV: 'production', QUIET: '1' };
  fs.writeFileSync(path.join(dir, '.vscode', 'settings.json'), JSON.stringify({
    'hotpath.targets': [
      { name: 'orders mix', command: ['node', 'server.js', mark], env, requests: [{ path: '/orders', weight: 20 }, { path: '/report', weight: 1 }, { path: '/catalog', weight: 3 }] },
      { name: 'visits', command: ['node', 'server.js', mark], env, path: '/visit' },
    ],
    'hotpath.profile.memory': true,
    'hotpath.load.durationSeconds': 4,
    'hotpath.load.warmupSeconds': 2,
    'hotpath.load.connections': 8,
    'hotpath.leak.rungRequests': 1500,
    'hotpath.leak.idleSeconds': 2,
  }, null, 2));
  return { dir, marker: mark, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

const lineWith = (ws: string, rel: string, text: string) => fs.readFileSync(path.join(ws, rel), 'utf8').split('\n').findIndex((l) => l.includes(text)) + 1;

describe('VS Code end to end: allocations, the event loop and leaks on a real Express app', function () {
  this.timeout(240_000);
  let s: UiSession;
  let page: Page;
  let failed = false;
  const t0 = Date.now();

  before(async function () {
    this.timeout(300_000);
    skipUnlessE2E(this);
    s = await startUiSession(ordersWorkspace);
    page = s.page;
    await openWorkbench(page, s.server.url, s.workspace.dir);
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'server.js' }).waitFor({ timeout: 90_000 });
  });

  afterEach(async function () {
    if (await onTestEnd(page, this.currentTest, 'memory-')) failed = true;
  });

  after(async () => {
    await s?.close(failed);
    log(`memory suite: ${seconds(t0)}`);
  });

  /** Runs a command on one of the workspace's targets, picked by name in the quick pick. */
  async function runOnTarget(command: string, target: string): Promise<void> {
    await clearToasts(page);
    await runCommand(page, command, 90_000, { opensQuickInput: true });
    const input = page.locator('.quick-input-widget:visible input[placeholder*="hotpath.targets"]');
    await input.waitFor({ timeout: 60_000 });
    await input.fill(target);
    await page.locator('.quick-input-widget:visible .monaco-list-row', { hasText: target }).first().waitFor({ timeout: 10_000 });
    await page.keyboard.press('Enter');
  }

  /** Waits for a labelled line in the active editor (decorations arrive after the editor opens). */
  async function labelOn(rel: string, line: number, pattern: RegExp): Promise<HotLine> {
    const text = fs.readFileSync(path.join(s.workspace.dir, rel), 'utf8').split('\n')[line - 1].replace(/\s+$/, '');
    const deadline = Date.now() + 20_000;
    let seen: HotLine[] = [];
    for (;;) {
      seen = await labelledLines(page, pattern);
      const hit = seen.find((l) => l.text.replace(/\s+$/, '') === text);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`${rel}:${line} ("${text.trim()}") carries no label ${pattern}; labelled: ${JSON.stringify(seen.map((l) => [l.text.trim(), l.after]))}`);
      await page.waitForTimeout(500);
    }
  }

  /** The text of the hover VS Code shows on a labelled line's code, containing `title`. */
  async function hoverText(rel: string, line: number, pattern: RegExp, title: string): Promise<string> {
    return textOf(await hoverOn(page, () => labelOn(rel, line, pattern), title));
  }

  it('Profile with Load (memory on): the PBKDF2 line is labelled "blocked the loop", its hover lists the episodes; loop p99 in the status bar', async () => {
    // Chance of failing on a correct product: < 1e-6. /report holds the loop ~40 ms per call (PBKDF2,
    // 200,000 rounds; more on a busy machine) and gets 1 request in 24 of thousands over 4 s: dozens of
    // such turns (34–61 in the integration test), each an episode — the part the monitor's 20 ms tick is
    // sure of is the turn less at most 20 ms — where 2 are asserted, none of them on another line (no other
    // route blocks).
    const t = Date.now();
    await runOnTarget('Hotpath: Profile with Load', 'orders mix');
    const status = statusItem(page, 'hotpath.status');
    const done = await waitForText(status, /% (self|own)/, 180_000);
    assert.match(done, /loop p99 [\d.,]+ ms/, `the status bar shows the event loop's p99: "${done}"`);
    assert.deepEqual(await waitForNoProcesses(s.workspace.marker, 10_000), [], 'the app is stopped after the run');
    log(`profiled in ${seconds(t)}; status "${done}"`);

    const rel = 'lib/report.js';
    const line = lineWith(s.workspace.dir, rel, 'crypto.pbkdf2Sync(');
    await openFile(page, rel);
    await goToLine(page, line);
    await page.mouse.move(5, 5);
    const blocked = await labelOn(rel, line, /blocked the loop: /);
    const m = /blocked the loop: (\d+) turns?, up to ([\d.,]+) ms/.exec(blocked.after);
    assert.ok(m, `label "${blocked.after}"`);
    assert.ok(Number(m[1]) >= 2, `several turns: "${blocked.after}"`);
    assert.ok(Number(m[2].replace(/,/g, '')) >= 20, `the longest turn is at least the 20 ms threshold: "${blocked.after}"`);
    // The PBKDF2 line, its CPU label and this label do not fit in 100 columns: the label is in the
    // CodeLens row above the line, not past the editor's right edge.
    assert.equal(blocked.where, 'above', `a long line's "blocked" label is above it: ${JSON.stringify(blocked)}`);
    // No other line of the file holds the loop.
    const others = (await labelledLines(page, /blocked the loop/)).filter((l) => l !== blocked && l.text.trim() !== blocked.text.trim());
    assert.deepEqual(others.map((l) => l.text.trim()), [], 'only the PBKDF2 line is labelled');
    await screenshot(page, 'memory-01-blocked-label');

    const hover = await hoverText(rel, line, /blocked the loop: /, 'Blocked the event loop');
    assert.match(hover, /Blocked the event loop: [\d.,]+ ms of CPU here during \d+ turns? of the loop of 20(\.0)? ms or more/);
    assert.match(hover, /Episodes: [\d.,]+ ms(, [\d.,]+ ms)*/);
    assert.match(hover, /While monthlyReport runs this synchronously, every other request waits/);
    assert.match(hover, /crypto\.pbkdf2/);
    await screenshot(page, 'memory-02-blocked-hover');
    await page.mouse.move(5, 5);
  });

  it('the allocation-heavy handler: catalogPage carries its bytes per request, with a hover that says what counts', async () => {
    // Chance of failing on a correct product: < 1e-6. catalogPage builds ~60 KB per /catalog request, 3 in
    // 24 of the mix: ~7 KB per request against the 2 KB asserted; the sampling profiler (one sample per
    // 32 KB on average) takes thousands of samples of it in 4 s. V8 records the allocating function, so no
    // other line of the file can carry its bytes.
    const rel = 'lib/catalog.js';
    const line = lineWith(s.workspace.dir, rel, 'function catalogPage(');
    await openFile(page, rel);
    await goToLine(page, line);
    await page.mouse.move(5, 5);
    const label = await labelOn(rel, line, /allocates [\d.,]+ (B|KB|MB)\/req/);
    const m = /allocates ([\d.,]+) (B|KB|MB)\/req/.exec(label.after)!;
    const bytes = Number(m[1].replace(/,/g, '')) * (m[2] === 'MB' ? 1048576 : m[2] === 'KB' ? 1024 : 1);
    // 600 objects (~60 KB) per /catalog request, 3 in 24 requests: several KB per request of the mix.
    assert.ok(bytes >= 2048, `catalogPage allocates several KB per request: "${label.after}"`);
    // The other lines of the file carry no allocation label: V8 records the allocating function.
    const all = await labelledLines(page, /allocates /);
    assert.deepEqual(all.filter((l) => l.text.trim() !== label.text.trim()).map((l) => [l.text.trim(), l.after]), []);
    await screenshot(page, 'memory-03-allocation-label');

    const hover = await hoverText(rel, line, /allocates [\d.,]+ (B|KB|MB)\/req/, 'allocates');
    assert.match(hover, /catalogPage allocates [\d.,]+ (B|KB|MB) per request \([\d.,]+ (B|KB|MB) sampled, [\d.]+% of the sampled bytes, objects the GC already freed included\)/);
    assert.match(hover, /reuse buffers and objects/);
    await screenshot(page, 'memory-04-allocation-hover');
    await page.mouse.move(5, 5);
  });

  it('Check for Leaks on /visit: the status bar says the heap grows; the line that keeps every visit carries what it retains', async () => {
    // Chance of failing on a correct product: < 1e-6 — each visit keeps a record (hundreds of bytes), so
    // 1,500 → 6,000 requests grow the heap by MBs against tens of KB of GC noise: the interval of the
    // growth rate is far above the floor (the integration leak test logs it: test/integration/memory.test.ts).
    const t = Date.now();
    await runOnTarget('Hotpath: Check for Leaks', 'visits');
    const status = statusItem(page, 'hotpath.status');
    const done = await waitForText(status, /heap (growing|stable)/, 180_000);
    assert.match(done, /heap growing \+[\d.,]+ (B|KB)\/req/, `status "${done}"`);
    assert.deepEqual(await waitForNoProcesses(s.workspace.marker, 10_000), [], 'the app is stopped after the check');
    log(`leak check in ${seconds(t)}; status "${done}"`);
    await screenshot(page, 'memory-05-leak-status');

    const rel = 'lib/audit.js';
    const line = lineWith(s.workspace.dir, rel, 'visits.push(');
    await openFile(page, rel);
    await goToLine(page, line);
    await page.mouse.move(5, 5);
    const hover = await hoverText(rel, line, /retains [\d.,]+ (B|KB)\/req/, 'Retained after full GC');
    assert.match(hover, /Retained after full GC: [\d.,]+ (B|KB) per request .*recordVisit/);
    assert.match(hover, /bound caches/);
    await screenshot(page, 'memory-06-retained-hover');
  });
});
