/**
 * Startup and micro-benchmarks in the real VS Code UI: "Hotpath: Profile Startup" on a real npm CLI
 * (semver) puts `+N ms (M modules)` on its require lines and heat on the module that dominates the
 * start; a tinybench file gets a "Benchmark" CodeLens whose results land on each task's line (the
 * discarded task flagged); "Hotpath: Create Benchmark for This Function" writes a harness next to an
 * exported function and opens it. One code-server and one page for all.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { marker, waitForNoProcesses } from '../helpers/cli';
import { hotLines, lensesWithLines } from './helpers/editor';
import { clearToasts, goToLine, openFile, openWorkbench, runCommand, screenshot, toast, ROOT } from './helpers/workbench';
import type { ShopWorkspace } from './helpers/workspace';
import { log, seconds, skipUnlessE2E, startUiSession, type UiSession } from './session';
import { onTestEnd } from './helpers/failures';

const APPS = path.join(ROOT, 'test', 'fixtures', 'npm-apps');

function workspace(): ShopWorkspace {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-e2e-startup-'));
  const mark = marker();
  for (const app of ['startup-cli', 'bench-suite']) fs.cpSync(path.join(APPS, app), path.join(dir, app), { recursive: true });
  fs.mkdirSync(path.join(dir, '.vscode'));
  fs.writeFileSync(path.join(dir, '.vscode', 'settings.json'), JSON.stringify({
    'hotpath.targets': [{ name: 'startup-cli', command: ['node', 'cli.js', mark], cwd: 'startup-cli' }],
    'hotpath.startup.profileRuns': 3,
    // What this file tests is the editor's view of the result; how many starts are timed is
    // test/integration/startup.test.ts's (the adaptive default timed 59 starts here: 71 s).
    'hotpath.startup.runs': 8,
    'hotpath.bench.runs': 2,
  }, null, 2));
  return { dir, marker: mark, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Waits for a run's summary toast; a "failed" toast ends the wait at once with its text. */
async function resultToast(page: Page, done: RegExp, timeout: number): Promise<string> {
  const ok = toast(page, done);
  const failed = toast(page, /failed:/);
  await Promise.race([ok.waitFor({ timeout }), failed.waitFor({ timeout })]);
  if (await failed.isVisible()) throw new Error(`the run failed: ${await failed.textContent()}`);
  return (await ok.textContent()) ?? '';
}

const lineOf = (ws: string, rel: string, text: string) => fs.readFileSync(path.join(ws, rel), 'utf8').split('\n').findIndex((l) => l.includes(text)) + 1;

describe('VS Code end to end: startup and benchmarks', function () {
  this.timeout(300_000);
  let s: UiSession;
  let page: Page;
  let failed = false;

  before(async function () {
    this.timeout(300_000);
    skipUnlessE2E(this);
    s = await startUiSession(workspace);
    page = s.page;
    await openWorkbench(page, s.server.url, s.workspace.dir);
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'startup-cli' }).waitFor({ timeout: 90_000 });
  });

  afterEach(async function () {
    if (await onTestEnd(page, this.currentTest, 'startup-')) failed = true;
  });

  after(async () => { await s?.close(failed); });

  it('Profile Startup: the summary, `+N ms (M modules)` on cli.js\'s require lines, heat in lib/rules.js', async () => {
    // Chance of failing on a correct product: < 1e-6 — rules.js's table is most of the start (+915 ms of
    // 1,514 ms at load average 15), so its require line and its loop's heat do not depend on the machine.
    const t = Date.now();
    await runCommand(page, 'Hotpath: Profile Startup');
    const done = await resultToast(page, /Startup: .* cold starts/, 240_000);
    log(`Profile Startup done in ${seconds(t)}: ${done.slice(0, 200)}`);
    assert.match(done, /\b8 cold starts/, 'the hotpath.startup.runs setting decides the timed starts');
    assert.deepEqual(await waitForNoProcesses(s.workspace.marker, 10_000), [], 'no start left running');
    await clearToasts(page);

    await openFile(page, 'startup-cli/cli.js');
    await goToLine(page, 1);
    await page.locator('.monaco-editor .codelens-decoration', { hasText: 'modules' }).filter({ visible: true }).first().waitFor({ timeout: 30_000 });
    const lenses = await lensesWithLines(page);
    const rules = lenses.find((l) => l.line.includes("require('./lib/rules')"));
    assert.ok(rules, `a CodeLens above the rules require: ${JSON.stringify(lenses)}`);
    assert.match(rules.lens, /\+[\d.,]+ (ms|s) \(1 module\)/);
    const semver = lenses.find((l) => l.line.includes("require('semver')"));
    assert.ok(semver && /\+[\d.,]+ (ms|s) \(\d\d+ modules\)/.test(semver.lens), `semver's require: ${JSON.stringify(semver)}`);
    await screenshot(page, 'startup-01-require-lenses');

    const rulesFile = 'startup-cli/lib/rules.js';
    await openFile(page, rulesFile);
    await goToLine(page, lineOf(s.workspace.dir, rulesFile, 'for (let round'));
    // Decorations arrive after the editor opens: wait for them (state), not for a fixed time.
    let heat = await hotLines(page);
    for (const deadline = Date.now() + 20_000; !heat.length && Date.now() < deadline; heat = await hotLines(page)) await page.waitForTimeout(250);
    assert.ok(heat.length > 0, 'the merged startup profile paints rules.js\'s loop');
    await screenshot(page, 'startup-02-heat');
  });

  it('Run Benchmark from the "Benchmark" CodeLens: each task\'s line shows its result; the discarded task is flagged', async () => {
    // Chance of failing on a correct product: under 1e-3 per attempt — a miss of the flag, which now needs
    // the empty function's calls a whole clock reading faster than in any process measured (sizing in
    // test/integration/bench.test.ts; a miss was one run in 40 before, systematic on Node 22 one session);
    // the test measures again once when the product marks the run unstable, and on CI a failed UI test is
    // retried once.
    const rel = 'bench-suite/checksum.bench.js';
    await openFile(page, rel);
    await goToLine(page, 1);
    type Lenses = Awaited<ReturnType<typeof lensesWithLines>>;
    /** The lens row above a task's `.add('name'` line. */
    const taskLens = (ls: Lenses, name: string) => ls.find((l) => l.line.includes(`.add('${name}'`));
    let lenses: Lenses = [];
    for (let attempt = 1; ; attempt++) {
      const before = taskLens(lenses, 'slow')?.lens;
      await goToLine(page, 1);
      const lens = page.locator('.monaco-editor .codelens-decoration', { hasText: 'Benchmark' }).filter({ visible: true }).first();
      await lens.waitFor({ timeout: 30_000 });
      const t = Date.now();
      await lens.locator('a', { hasText: 'Benchmark' }).first().click();
      await resultToast(page, /Benchmark checksum\.bench\.js: 3 tasks over 2 processes/, 240_000);
      log(`Run Benchmark done in ${seconds(t)}`);
      await goToLine(page, lineOf(s.workspace.dir, rel, ".add('slow'"));
      await page.locator('.monaco-editor .codelens-decoration', { hasText: 'ops/s' }).filter({ visible: true }).first().waitFor({ timeout: 30_000 });
      // A second run's figures replace the first's (the CodeLens refreshes after the result arrives).
      for (const until = Date.now() + 10_000; Date.now() < until; await page.waitForTimeout(250)) {
        lenses = await lensesWithLines(page);
        if (taskLens(lenses, 'slow')?.lens !== before) break;
      }
      const flagged = /measures nothing/.test(taskLens(lenses, 'discarded')?.lens ?? '');
      // A run the product itself marks unstable (another program took the CPU) may not tell the discarded
      // task from an empty function: measure again once, as the product advises.
      if (flagged || attempt === 2 || !lenses.some((l) => /unstable/.test(l.lens))) break;
      log(`unstable run, measured again: ${JSON.stringify(lenses.map((l) => l.lens))}`);
      await clearToasts(page);
    }
    const slow = taskLens(lenses, 'slow');
    assert.ok(slow && /[\d,]+ ops\/s/.test(slow.lens) && /\/op/.test(slow.lens), JSON.stringify(lenses));
    const discarded = taskLens(lenses, 'discarded');
    assert.ok(discarded && /measures nothing/.test(discarded.lens), `the discarded task is flagged: ${JSON.stringify(discarded)}`);
    await screenshot(page, 'startup-03-bench-lenses');
    await clearToasts(page);
  });

  it('Create Benchmark for This Function: a tinybench harness next to checksum.js, importing the function', async () => {
    await openFile(page, 'bench-suite/lib/checksum.js');
    await goToLine(page, lineOf(s.workspace.dir, 'bench-suite/lib/checksum.js', 'export function checksumFast'));
    await runCommand(page, 'Hotpath: Create Benchmark for This Function', 90_000, { opensQuickInput: true });
    const input = page.locator('.quick-input-widget input').first();
    await input.fill('checksumFast');
    await page.keyboard.press('Enter');
    await page.locator('.tabs-container .tab.active', { hasText: 'checksum.bench.mjs' }).waitFor({ timeout: 30_000 });
    const written = fs.readFileSync(path.join(s.workspace.dir, 'bench-suite', 'lib', 'checksum.bench.mjs'), 'utf8');
    assert.match(written, /import \{ checksumFast \} from '\.\/checksum\.js';/);
    assert.match(written, /bench\.add\('checksumFast', \(\) => \{ sink = checksumFast\(values\); \}\);/);
    await screenshot(page, 'startup-04-create-benchmark');
  });
});
