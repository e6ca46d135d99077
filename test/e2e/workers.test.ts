/**
 * Worker threads in the real VS Code UI: a suggestion service (Express 5 + a piscina pool of two
 * threads) whose main thread only routes requests and waits. After Profile with Load, the editor covers
 * every thread: the status bar names the worker's function, the worker's file gets its CodeLens and line
 * labels, the hover says which threads ran the line, and the flamegraph draws all threads together (a
 * frame per thread) and each one alone.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { marker, waitForNoProcesses } from '../helpers/cli';
import { hotLines, hoverOn, LABEL, lensesWithLines } from './helpers/editor';
import { clearToasts, goToLine, openFile, openWorkbench, runCommand, screenshot, statusItem, textOf, waitForText, webview, ROOT } from './helpers/workbench';
import type { ShopWorkspace } from './helpers/workspace';
import { log, seconds, skipUnlessE2E, startUiSession, type UiSession } from './session';

const APP = path.join(ROOT, 'test', 'fixtures', 'npm-apps', 'suggest-pool');
const WORKER_FILE = 'suggest-pool/lib/suggest-worker.js';

/** A temp folder with the app (node_modules included) and one target for it. */
function poolWorkspace(): ShopWorkspace {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-e2e-workers-'));
  const mark = marker();
  fs.cpSync(APP, path.join(dir, 'suggest-pool'), { recursive: true });
  fs.mkdirSync(path.join(dir, '.vscode'));
  fs.writeFileSync(path.join(dir, '.vscode', 'settings.json'), JSON.stringify({
    'hotpath.targets': [{ name: 'suggest-pool', command: ['node', 'server.js', mark], cwd: 'suggest-pool', env: { PORT: '0', NODE_ENV: 'production' }, path: '/api/suggest' }],
    // Long enough for V8 to optimize the worker's task function (levenshtein inlined) before the measured window.
    'hotpath.load.durationSeconds': 4,
    'hotpath.load.warmupSeconds': 2,
    'hotpath.load.connections': 4,
  }, null, 2));
  return { dir, marker: mark, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

interface Box { name: string; file: string; line: number; x: number; y: number; w: number; h: number }

describe('VS Code end to end: worker threads', function () {
  this.timeout(300_000);
  let s: UiSession;
  let page: Page;
  let failed = false;
  const t0 = Date.now();
  let levenshteinLine = 0;

  before(async function () {
    this.timeout(300_000);
    skipUnlessE2E(this);
    s = await startUiSession(poolWorkspace);
    page = s.page;
    await openWorkbench(page, s.server.url, s.workspace.dir);
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'suggest-pool' }).waitFor({ timeout: 90_000 });
    levenshteinLine = fs.readFileSync(path.join(s.workspace.dir, WORKER_FILE), 'utf8').split('\n').findIndex((l) => l.startsWith('function levenshtein(')) + 1;
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      failed = true;
      if (page) await screenshot(page, `workers-failed-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
    }
  });

  after(async () => {
    await s?.close(failed);
    log(`workers suite: ${seconds(t0)}`);
  });

  it('Profile with Load: the status bar names the worker\'s function, not the idle main thread\'s', async () => {
    const t = Date.now();
    await clearToasts(page);
    await runCommand(page, 'Hotpath: Profile with Load', 90_000);
    // The workspace's one target is used as it is (no picker).
    const status = statusItem(page, 'hotpath.status');
    await waitForText(status, /Profiling|Warming|Starting|Measuring/, 60_000);
    const done = await waitForText(status, /% (self|own)( · loop p99 [\d.,]+ m?s)?$/, 180_000);
    assert.match(done, /levenshtein [\d.]+% (self|own)/, 'the hottest function of all threads');
    // The tooltip says what the share is of, and where the function ran.
    await status.hover();
    const tip = page.locator('.workbench-hover, .monaco-hover', { hasText: /Hottest function/ }).filter({ visible: true }).first();
    await tip.waitFor({ timeout: 10_000 });
    const tipText = await textOf(tip);
    assert.match(tipText, /of all 3 threads' time/, tipText);
    assert.match(tipText, /ran in 2 worker threads/, tipText);
    await page.mouse.move(5, 5);
    assert.deepEqual(await waitForNoProcesses(s.workspace.marker, 10_000), [], 'the app and its pool are stopped after the run');
    await screenshot(page, 'workers-01-status');
    log(`profiled in ${seconds(t)}; status "${done}"`);
  });

  it('the worker\'s file: a CodeLens on levenshtein naming both pool threads, labels on its loop, a hover naming the threads', async () => {
    await openFile(page, WORKER_FILE);
    await goToLine(page, levenshteinLine + 8);
    const lensLocator = page.locator('.monaco-editor .codelens-decoration', { hasText: 'worker threads' }).filter({ visible: true }).first();
    await lensLocator.waitFor({ timeout: 30_000 });
    const lens = (await lensesWithLines(page)).find((l) => /^function levenshtein\(/.test(l.line));
    assert.ok(lens, `a CodeLens above levenshtein: ${JSON.stringify(await lensesWithLines(page))}`);
    assert.match(lens.lens, /[\d.]+% self · [\d.]+% total · [\d,.]+ (ms|s)/);
    assert.match(lens.lens, /· 2 worker threads/);
    // Its loop carries the time: a label on the lines of the inner loop (after them, or above a long one).
    const inLoop = (l: { text: string }) => /row\[j\]|charCodeAt|for \(let j/.test(l.text);
    let labels = await hotLines(page);
    for (const deadline = Date.now() + 30_000; !labels.some(inLoop) && Date.now() < deadline;) labels = await hotLines(page);
    const loop = labels.filter(inLoop);
    assert.ok(loop.length > 0, `the inner loop is labelled: ${JSON.stringify(labels)}`);
    for (const l of loop) assert.match(l.after, LABEL);
    await screenshot(page, 'workers-02-codelens');

    const target = loop.find((l) => l.hoverable) ?? loop[0];
    const again = async () => (await hotLines(page)).find((l) => l.text === target.text) ?? target;
    const hover = await textOf(await hoverOn(page, again, 'Threads', 5_000));
    assert.match(hover, /ran in worker \d \(worker\.js\), worker \d \(worker\.js\)/);
    assert.match(hover, /shares are of all 3 threads' time together/);
    await screenshot(page, 'workers-03-hover');
    await page.mouse.move(5, 5);
  });

  it('the flamegraph draws all threads together, a frame per thread, and each thread on its own', async () => {
    await page.locator('.tabs-container .tab', { hasText: 'Flamegraph' }).first().click();
    const frame = webview(page);
    const pane = frame.locator('[data-pane="main"]');
    await pane.waitFor({ timeout: 60_000 });
    const boxes = () => pane.evaluate(() => (globalThis as any).__hotpath.boxes('main') as Box[]);
    const all = await boxes();
    const names = new Set(all.map((b) => b.name));
    for (const thread of ['main', 'worker 1 (worker.js)', 'worker 2 (worker.js)']) assert.ok(names.has(thread), `a frame for ${thread}: ${[...names].slice(0, 30).join(', ')}`);
    const task = all.filter((b) => (b.name === 'module.exports' || b.name === 'levenshtein') && b.file.endsWith('suggest-worker.js'));
    assert.ok(task.length > 0, `the worker's code is drawn: ${[...names].slice(0, 40).join(', ')}`);
    await screenshot(page, 'workers-04-flame-all');

    // Pick one pool thread: its own flamegraph, with the worker's code and a flame chart.
    const choice = frame.locator('.hp-views button', { hasText: 'worker 1 (worker.js)' });
    await choice.click();
    await frame.locator('.hp-views button[aria-pressed="true"]', { hasText: 'worker 1 (worker.js)' }).waitFor({ timeout: 30_000 });
    await frame.locator('.hp-title', { hasText: 'worker 1 (worker.js)' }).waitFor({ timeout: 30_000 });
    const one = await boxes();
    assert.ok(one.some((b) => b.file.endsWith('suggest-worker.js')), `worker 1 draws the worker's code: ${[...new Set(one.map((b) => b.name))].slice(0, 30).join(', ')}`);
    assert.ok(!one.some((b) => b.name === 'handleRequest'), 'the main thread\'s request handler is not in a pool thread');
    await screenshot(page, 'workers-05-flame-worker');

    await frame.locator('.hp-views button', { hasText: 'All threads' }).click();
    await frame.locator('.hp-views button[aria-pressed="true"]', { hasText: 'All threads' }).waitFor({ timeout: 30_000 });
  });

  it('a search for levenshtein, which V8 inlined into the task function, finds its CodeLens\'s time: in all threads and in each pool thread\'s own flamegraph', async () => {
    await openFile(page, WORKER_FILE);
    await goToLine(page, levenshteinLine + 8);
    await page.locator('.monaco-editor .codelens-decoration', { hasText: 'worker threads' }).filter({ visible: true }).first().waitFor({ timeout: 30_000 });
    const lens = (await lensesWithLines(page)).find((l) => /^function levenshtein\(/.test(l.line));
    assert.ok(lens, 'a CodeLens above levenshtein');
    const lensTotal = Number(/([\d.]+)% total/.exec(lens.lens)?.[1]);
    await page.locator('.tabs-container .tab', { hasText: 'Flamegraph' }).first().click();
    const frame = webview(page);
    const pane = frame.locator('[data-pane="main"]');
    await pane.waitFor({ timeout: 60_000 });
    const search = frame.locator('input[type="search"]');
    const result = frame.locator('.hp-search-result[data-share-pct]');
    /** The search's share and time (the result reads `1 function · 54.5% of total (5,380 ms)`). */
    const searched = async (): Promise<{ pct: number; ms: number; text: string }> => {
      await search.fill('');
      await search.fill('levenshtein');
      await result.filter({ hasText: /of total/ }).waitFor({ timeout: 10_000 });
      const text = await textOf(result);
      const m = /\(([\d,.]+) (ms|s)\)/.exec(text);
      assert.ok(m, text);
      return { pct: Number(await result.getAttribute('data-share-pct')), ms: Number(m[1].replace(/,/g, '')) * (m[2] === 's' ? 1000 : 1), text };
    };
    const all = await searched();
    assert.ok(Math.abs(all.pct - lensTotal) <= 1, `All threads: the search (${all.text}) agrees with the CodeLens (${lens.lens}) within 1 point`);
    let sum = 0;
    for (const thread of ['worker 1 (worker.js)', 'worker 2 (worker.js)']) {
      await frame.locator('.hp-views button', { hasText: thread }).click();
      await frame.locator('.hp-title', { hasText: thread }).waitFor({ timeout: 30_000 });
      const drawn = await pane.evaluate(() => (globalThis as any).__hotpath.boxes('main') as { name: string; inlined: boolean }[]);
      assert.ok(drawn.some((b) => b.name === 'levenshtein' && b.inlined), `${thread}: levenshtein drawn as an inlined frame`);
      const one = await searched();
      log(`${thread}: search "${one.text}"`);
      sum += one.ms;
      await screenshot(page, `workers-06-search-${thread.slice(0, 8).replace(/\W/g, '')}`);
    }
    // Each pool thread's share is of its own time; their times add up to the CodeLens's (of all threads).
    assert.ok(Math.abs(sum - all.ms) <= Math.max(2, all.ms * 0.01), `the pool threads' searches (${sum} ms) add up to All threads' (${all.text})`);
    await search.fill('');
    await frame.locator('.hp-views button', { hasText: 'All threads' }).click();
  });
});
