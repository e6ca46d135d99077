/**
 * Runs the extension-host suite (test/vscode-host) inside a real VS Code: code-server loads this
 * repository as the extension under development (extensionDevelopmentPath) and the bundled suite
 * as extensionTestsPath, both passed through the workbench URL's payload; the workbench calls
 * window.codeAutomationExit(code) when the suite settles. Fails if the suite fails or runs nothing.
 *
 * test-lane: own — it starts a code-server of its own (test-driver mode, which hides notifications from
 * the UI suites), so it runs in a mocha process of its own, beside the others.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { format } from 'node:util';
import * as esbuild from 'esbuild';
import type { Browser } from 'playwright-core';
import { launchBrowser, RESULTS, remoteAuthority, ROOT, screenshot, workbenchUrl } from './helpers/workbench';
import { shopWorkspace, type ShopWorkspace } from './helpers/workspace';
import { killLeftovers, log, seconds, skipUnlessE2E, type CodeServer } from './session';
import { failedNow } from './helpers/failures';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startCodeServer } = require('../../scripts/e2e/code-server.js') as { startCodeServer(o: { workspace: string; testDriver?: boolean; log?: (l: string) => void }): Promise<CodeServer> };

const HOST_SRC = path.join(ROOT, 'test', 'vscode-host');
const HOST_OUT = path.join(HOST_SRC, 'out'); // git-ignored

interface Results { passed: string[]; failed: { title: string; error: string }[]; pending: string[]; metrics: Record<string, number> }

/** Bundles index.ts and each *.test.ts of the suite (vscode and mocha stay external). */
async function buildSuite(): Promise<void> {
  fs.rmSync(HOST_OUT, { recursive: true, force: true });
  const entryPoints = fs.readdirSync(HOST_SRC).filter((f) => f.endsWith('.ts')).map((f) => path.join(HOST_SRC, f));
  await esbuild.build({
    entryPoints, outdir: HOST_OUT, bundle: true, platform: 'node', format: 'cjs', target: 'node20',
    sourcemap: 'inline', external: ['vscode', 'mocha', 'mocha/*'], logLevel: 'warning',
  });
}

describe('VS Code end to end: the extension-host suite', function () {
  this.timeout(420_000);
  let workspace: ShopWorkspace | undefined;
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let tmp = '';
  let failed = false;
  let attempt = 0;

  before(function () {
    skipUnlessE2E(this);
  });

  // Per attempt (CI retries a failed UI test once): what the attempt started is stopped before the next.
  afterEach(async function () {
    failed = failedNow(this.currentTest);
    await browser?.close().catch(() => undefined);
    await server?.stop({ keepState: failed });
    if (failed && server) log(`code-server state (logs) kept in ${server.stateDir}`);
    if (workspace) { killLeftovers(workspace.marker); workspace.remove(); }
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    browser = undefined;
    server = undefined;
    workspace = undefined;
    tmp = '';
  });

  it('runs test/vscode-host in the extension host and every test passes', async () => {
    const t0 = Date.now();
    const suffix = ++attempt > 1 ? `-attempt${attempt}` : ''; // a retry keeps the first attempt's files
    await buildSuite();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-host-'));
    const resultsFile = path.join(tmp, 'results.json');
    workspace = shopWorkspace();
    fs.copyFileSync(path.join(ROOT, 'test', 'fixtures', 'apps', 'cpu-script.js'), path.join(workspace.dir, 'cpu-script.js'));
    server = await startCodeServer({ workspace: workspace.dir, testDriver: true, log });

    const authority = await remoteAuthority(server.url, workspace.dir);
    const remote = (p: string) => `vscode-remote://${authority}${p}`;
    const payload: [string, string][] = [
      ['extensionDevelopmentPath', remote(ROOT)],
      ['extensionTestsPath', remote(path.join(HOST_OUT, 'index.js'))],
      ['extensionEnvironment', JSON.stringify({ HOTPATH_HOST_RESULTS: resultsFile })],
      ['skipWelcome', 'true'],
    ];
    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    // The host's console.log (mocha's spec reporter) reaches the page console through the workbench
    // logger as ('%c INFO', 'color: …', format, ...args).
    const transcript: string[] = [];
    page.on('console', async (msg) => {
      if (msg.type() !== 'log' && msg.type() !== 'info') return;
      let values: unknown[];
      try { values = await Promise.all(msg.args().map((a) => a.jsonValue())); } catch { values = [msg.text()]; }
      if (typeof values[0] === 'string' && values[0].startsWith('%c')) values = values.slice(2);
      transcript.push(format(...values));
    });
    const finished = new Promise<number>((resolve) => {
      void page.exposeFunction('codeAutomationExit', (code: number) => { resolve(code); });
    });
    await page.goto(workbenchUrl(server.url, workspace.dir, payload), { waitUntil: 'domcontentloaded', timeout: 120_000 });
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([finished, new Promise<null>((r) => { timer = setTimeout(() => r(null), 360_000); })]);
    clearTimeout(timer); // or mocha's process would wait for it after the last test
    await screenshot(page, `extension-host-suite${suffix}`).catch(() => undefined);
    fs.mkdirSync(RESULTS, { recursive: true });
    fs.writeFileSync(path.join(RESULTS, `extension-host-transcript${suffix}.txt`), transcript.join('\n'));
    const results: Results | null = fs.existsSync(resultsFile) ? JSON.parse(fs.readFileSync(resultsFile, 'utf8')) : null;
    if (results) fs.writeFileSync(path.join(RESULTS, `extension-host-results${suffix}.json`), JSON.stringify(results, null, 2));
    log(`extension-host suite: exit ${code} after ${seconds(t0)}; ${results?.passed.length ?? 0} passed, ${results?.failed.length ?? 0} failed; metrics ${JSON.stringify(results?.metrics ?? {})}`);
    for (const f of results?.failed ?? []) console.log(`    ✗ ${f.title}\n${f.error.replace(/^/gm, '        ')}`);
    assert.notEqual(code, null, `the suite did not finish within 360 s; transcript:\n${transcript.slice(-40).join('\n')}`);
    assert.ok(results, `no results file: the suite did not run (exit ${code}); transcript:\n${transcript.slice(-40).join('\n')}`);
    assert.deepEqual(results.failed.map((f) => f.title), [], 'extension-host tests failed (see above)');
    assert.equal(code, 0);
    assert.ok(results.passed.length >= 9, `all extension-host tests ran (${results.passed.length} passed)`);
  });
});
