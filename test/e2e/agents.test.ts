/**
 * Agents' door in the real VS Code UI: what a user of code-server 1.139 without Copilot can see of it.
 * There the chat view has no model, so its tool picker cannot open; "MCP: List Servers" can (with the
 * AI features the harness turns off by default on): it lists Hotpath's server from the extension's
 * definition provider; starting it runs `hotpath mcp` from the installed extension, which VS Code
 * reports running with its 11 tools discovered. Nothing of it is left when code-server stops.
 * (The language-model tools themselves are tested in the extension host: test/vscode-host/zz-lm.test.ts.)
 */
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { processesWith } from '../helpers/cli';
import { openWorkbench, runCommand, screenshot } from './helpers/workbench';
import { log, seconds, skipUnlessE2E, startUiSession, type UiSession } from './session';

const rows = (page: Page) => page.locator('.quick-input-widget .monaco-list-row');

/**
 * Opens "MCP: List Servers" until it lists Hotpath (the list is built when it opens; the extension
 * activates for it — onMcpCollection — and a collection that arrives later shows in the next list) and
 * returns the row's text ("Hotpath Stopped", "Hotpath Running"), the list left open.
 */
async function hotpathServerRow(page: Page, timeout = 90_000): Promise<string> {
  const deadline = Date.now() + timeout;
  for (;;) {
    await runCommand(page, 'MCP: List Servers', 90_000, { opensQuickInput: true });
    const row = rows(page).filter({ hasText: 'Hotpath' }).first();
    try {
      await row.waitFor({ timeout: 5_000 });
      return (await row.textContent()) ?? '';
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await page.keyboard.press('Escape');
      await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
    }
  }
}

describe('VS Code end to end: Hotpath\'s MCP server in the MCP server list', function () {
  this.timeout(300_000);
  let s: UiSession;
  let page: Page;
  let failed = false;

  before(async function () {
    this.timeout(300_000);
    skipUnlessE2E(this);
    s = await startUiSession(undefined, { 'chat.disableAIFeatures': false });
    page = s.page;
    await openWorkbench(page, s.server.url, s.workspace.dir);
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      failed = true;
      if (page) await screenshot(page, `agents-failed-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
    }
  });

  after(async () => {
    const dir = s?.workspace.dir;
    await s?.close(failed);
    if (dir) assert.deepEqual(processesWith(`mcp --cwd ${dir}`), [], 'no hotpath mcp left once code-server stopped');
  });

  it('"MCP: List Servers" lists Hotpath; started, it runs with its 11 tools discovered', async () => {
    const t = Date.now();
    const before = await hotpathServerRow(page);
    log(`server list: ${before} (${seconds(t)})`);
    assert.match(before, /^Hotpath\s*(Stopped|Running)/);
    await screenshot(page, 'agents-mcp-server-list');
    if (/Stopped/.test(before)) {
      await rows(page).filter({ hasText: 'Hotpath' }).first().click();
      const start = rows(page).filter({ hasText: 'Start Server' }).first();
      await start.waitFor({ timeout: 30_000 });
      await start.click();
      // The list closes as the server starts: list again once it has (F1 into a closing picker is lost).
      await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => undefined);
    } else {
      await page.keyboard.press('Escape');
    }
    // Running: the state VS Code shows once the server answered its initialize (found again each time).
    let state = '';
    for (const deadline = Date.now() + 90_000; Date.now() < deadline;) {
      state = await hotpathServerRow(page);
      if (/Running/.test(state)) break;
      await page.keyboard.press('Escape');
      await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
    }
    assert.match(state, /^Hotpath\s*Running/, `the server runs (${state})`);
    log(`running (${seconds(t)})`);
    assert.ok(processesWith(`mcp --cwd ${s.workspace.dir}`).length >= 1, 'the server process is the extension\'s dist/cli.js mcp in the workspace');
    await rows(page).filter({ hasText: 'Hotpath' }).first().click();
    const output = rows(page).filter({ hasText: 'Show Output' }).first();
    await output.waitFor({ timeout: 30_000 });
    await output.click();
    const discovered = page.locator('.panel .view-lines', { hasText: 'Discovered 11 tools' }).first();
    await discovered.waitFor({ timeout: 60_000 });
    await screenshot(page, 'agents-mcp-output');
    log(`MCP server running with 11 tools in ${seconds(t)}`);
  });
});
